// What the Zerto tools and the guard reach: one client per configured site, the vSphere-backed
// VM locator (absent in Zerto-only mode), the FLR session registry and the guard's timing.
import type { FlrSessionRegistry, VmLocator, ZertoSiteConfig, ZvmClient } from './index.js';

export interface ZertoSite {
  config: ZertoSiteConfig;
  client: ZvmClient;
}

export interface ZertoServices {
  sites: ZertoSite[];
  locator?: VmLocator;
  flrSessions: FlrSessionRegistry;
  restoreDir: string;
  checkpointTimeoutMs: number;
  pollIntervalMs: number;
}

export function siteNamed(zerto: ZertoServices, name: string): ZertoSite | undefined {
  return zerto.sites.find((s) => s.config.name === name);
}
