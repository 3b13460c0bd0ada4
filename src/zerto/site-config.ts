// The shape of one configured Zerto site as the ZVM client consumes it. The foundation's config
// loader turns config.json's snake_case `sites[]` entries into this (applying the defaults below),
// so the client never reads config files or the environment itself.

import { DEFAULT_TAG_MAX_LENGTH } from './tag.js';

export interface ZertoSiteConfig {
  /** config.json site name; used in messages, the FLR session registry and the call log. */
  name: string;
  /** Base URL of the ZVM appliance, e.g. `https://zvm.example.com` (no `/v1`). */
  url: string;
  /** Keycloak client id. `zerto-client` is the appliance's built-in public client (password grant). */
  clientId: string;
  /**
   * Prefix of the secret variables: `{PREFIX}_USER` + `{PREFIX}_PASSWORD` select the password
   * grant, `{PREFIX}_CLIENT_SECRET` selects client_credentials. Read lazily through SecretSource.
   */
  credentialPrefix: string;
  /** Appliances ship self-signed certificates, so verification is off unless asked for. */
  verifyTls: boolean;
  /** PEM bundle to trust in addition to (not instead of) verification being on. */
  caFile?: string;
  /** targets.yaml names whose VMs this site protects: the scope of hostname and name fallback. */
  vcenterTargets: string[];
  /** Longest checkpoint name sent to this ZVM (tag.ts cuts the free text to fit). */
  tagMaxLength: number;
}

export const DEFAULT_ZERTO_CLIENT_ID = 'zerto-client';

/** Fills the documented defaults for a partially specified site (tests, the lab, the loader). */
export function withSiteDefaults(
  site: Pick<ZertoSiteConfig, 'name' | 'url' | 'credentialPrefix'> & Partial<ZertoSiteConfig>,
): ZertoSiteConfig {
  const out: ZertoSiteConfig = {
    name: site.name,
    url: site.url.replace(/\/+$/, ''),
    clientId: site.clientId ?? DEFAULT_ZERTO_CLIENT_ID,
    credentialPrefix: site.credentialPrefix,
    verifyTls: site.verifyTls ?? false,
    vcenterTargets: site.vcenterTargets ?? [],
    tagMaxLength: site.tagMaxLength ?? DEFAULT_TAG_MAX_LENGTH,
  };
  if (site.caFile !== undefined) out.caFile = site.caFile;
  return out;
}
