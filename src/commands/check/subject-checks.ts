// Checks per configured subject: each vSphere target and each Zerto site gets DNS, TCP, TLS, a
// real login with the configured credential variables (named, never printed), the API version
// and the clock skew. Logins go through the product's own clients, so a pass here means the
// server's first call will log in the same way.
import { readFileSync } from 'node:fs';
import type { TargetEntry } from '../../config/targets.js';
import type { ZertoSiteEntry } from '../../config/app-config.js';
import { isAppError } from '../../core/errors.js';
import type { SecretSource } from '../../core/secrets.js';
import { VimClient } from '../../vsphere/vim-client.js';
import { withSiteDefaults, ZvmClient } from '../../zerto/index.js';
import { probeEndpoint, type Endpoint } from './network-probe.js';
import { clockRow, endpointRows, type TlsPolicy } from './endpoint-rows.js';
import { row, skipped, type CheckRow } from './check-result.js';

const LOGIN_TIMEOUT_MS = 15_000;

function readCa(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function credentialNames(secrets: SecretSource, names: string[]): string {
  return names.map((n) => `${n} ${secrets.get(n) ? 'set' : 'not set'}`).join(', ');
}

/** Logs in with the product's client, reads the version, always closes; a throw is the login row. */
async function loginRows(subject: string, named: string, client: { close(): Promise<void> }, login: () => Promise<[string, string]>): Promise<CheckRow[]> {
  try {
    const [how, version] = await login();
    return [row(subject, 'login', 'ok', `${how} (${named})`), row(subject, 'api_version', 'ok', version)];
  } catch (err) {
    const msg = isAppError(err) ? err.message : String((err as Error).message ?? err);
    const hint = isAppError(err) && err.hint ? err.hint : 'Check the credentials and that the account may log in.';
    const status = isAppError(err) && err.code === 'auth_failed' ? 'login rejected' : 'login failed';
    return [row(subject, 'login', 'fail', `${status} (${named}): ${msg}`, hint), skipped(subject, 'api_version', 'no session')];
  } finally {
    await client.close().catch(() => undefined);
  }
}

export async function checkTarget(t: TargetEntry, secrets: SecretSource): Promise<CheckRow[]> {
  const subject = `target ${t.name}`;
  const tls = t.protocol === 'https';
  const ep: Endpoint = { host: t.host, port: t.port ?? (tls ? 443 : 80), tls, ...(t.caFile && readCa(t.caFile) ? { ca: readCa(t.caFile)! } : {}) };
  const where = `targets.yaml (target ${t.name})`;
  const policy: TlsPolicy = { verifies: !t.insecure, where, offSetting: `insecure: true in ${where}`, ...(t.caFile ? { caFile: t.caFile } : {}) };
  const probe = await probeEndpoint(ep);
  const rows = endpointRows(subject, ep, probe, policy);
  if (probe.dnsError || probe.tcpError) return rows;
  if (t.caFile && !ep.ca) rows.push(row(subject, 'tls', 'fail', `cannot read ca_file ${t.caFile}`, `Point ca_file in ${where} at a readable PEM file.`));

  const names = [`${t.credentialPrefix}_USER`, `${t.credentialPrefix}_PASSWORD`];
  const named = credentialNames(secrets, names);
  if (names.some((n) => !secrets.get(n))) {
    rows.push(row(subject, 'login', 'fail', `credentials missing (${named})`, `Set ${names.join(' and ')} in the environment the MCP client gives this server.`), skipped(subject, 'api_version', 'no session'));
  } else {
    const client = new VimClient(t, { secrets, timeoutMs: LOGIN_TIMEOUT_MS, keepaliveMs: 0 });
    rows.push(...await loginRows(subject, named, client, async () => {
      await client.connect({ signal: AbortSignal.timeout(LOGIN_TIMEOUT_MS) });
      const about = client.about;
      return ['logged in', `${about?.fullName || about?.name || 'vSphere'}, API ${about?.apiVersion || 'unknown'}`];
    }));
  }
  rows.push(clockRow(subject, probe));
  return rows;
}

export async function checkSite(s: ZertoSiteEntry, secrets: SecretSource): Promise<CheckRow[]> {
  const subject = `site ${s.name}`;
  const url = new URL(s.url);
  const tls = url.protocol === 'https:';
  const ca = readCa(s.caFile);
  const ep: Endpoint = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (tls ? 443 : 80), tls, ...(ca ? { ca } : {}) };
  const where = `config.json (site ${s.name})`;
  const verifies = s.verifyTls || s.caFile !== undefined;
  const policy: TlsPolicy = { verifies, where, offSetting: `verify_tls: false and no ca_file in ${where}`, ...(s.caFile ? { caFile: s.caFile } : {}) };
  const probe = await probeEndpoint(ep);
  const rows = endpointRows(subject, ep, probe, policy);
  if (probe.dnsError || probe.tcpError) return rows;

  const p = s.credentialPrefix;
  const named = credentialNames(secrets, [`${p}_USER`, `${p}_PASSWORD`, `${p}_CLIENT_SECRET`]);
  const site = withSiteDefaults({ ...s });
  const client = new ZvmClient({ site, secrets, requestTimeoutMs: LOGIN_TIMEOUT_MS });
  rows.push(...await loginRows(subject, named, client, async () => {
    await client.login(AbortSignal.timeout(LOGIN_TIMEOUT_MS));
    const local = await client.localSite(AbortSignal.timeout(LOGIN_TIMEOUT_MS));
    return [`token issued by Keycloak client ${site.clientId}`, `ZVM ${local.SiteName ?? site.name} version ${local.Version ?? 'unknown'} (${local.SiteType ?? 'site type unknown'})`];
  }));
  rows.push(clockRow(subject, probe));
  return rows;
}
