// Turns a network probe into table rows, explaining each failure with the setting that fixes it.
// The TLS explanation depends on how the subject verifies: vSphere targets verify unless
// `insecure: true`; Zerto sites verify only with `verify_tls: true` or a `ca_file`.
import type { CertificateFacts, Endpoint, ProbeResult } from './network-probe.js';
import { row, skipped, type CheckRow } from './check-result.js';

export interface TlsPolicy {
  /** Whether the product verifies this subject's certificate. */
  verifies: boolean;
  caFile?: string;
  /** Where to set things: `targets.yaml (lab-vc1)` or `config.json sites[lab-site-a]`. */
  where: string;
  /** The setting that turns verification off (`insecure: true` or `verify_tls: false`). */
  offSetting: string;
}

const EXPIRY_WARN_DAYS = 30;
/** Keycloak tokens and vCenter SAML tokens are refused beyond a few minutes of skew. */
const SKEW_WARN_MS = 60_000;
const SKEW_FAIL_MS = 5 * 60_000;

export function endpointRows(subject: string, ep: Endpoint, probe: ProbeResult, tls: TlsPolicy): CheckRow[] {
  const rows: CheckRow[] = [];
  if (probe.dnsError) {
    rows.push(row(subject, 'dns', 'fail', `cannot resolve ${ep.host}: ${probe.dnsError}`, `Check the host name in ${tls.where}, or this machine's DNS.`));
    return [...rows, ...['tcp', 'tls', 'login', 'api_version', 'clock'].map((c) => skipped(subject, c, 'no address'))];
  }
  rows.push(row(subject, 'dns', 'ok', `${ep.host} -> ${(probe.addresses ?? []).join(', ')}`));
  if (probe.tcpError) {
    rows.push(row(subject, 'tcp', 'fail', `cannot connect to ${ep.host}:${ep.port}: ${probe.tcpError}`,
      `Check that the service runs and that port ${ep.port} in ${tls.where} is right and not blocked by a firewall.`));
    return [...rows, ...['tls', 'login', 'api_version', 'clock'].map((c) => skipped(subject, c, 'no connection'))];
  }
  rows.push(row(subject, 'tcp', 'ok', `${ep.host}:${ep.port} accepts connections`));
  if (ep.tls) {
    if (probe.tlsError || !probe.certificate) {
      rows.push(row(subject, 'tls', 'fail', `TLS handshake failed: ${probe.tlsError ?? 'no certificate'}`, `Check that ${ep.host}:${ep.port} speaks https.`));
    } else rows.push(tlsRow(subject, ep, probe.certificate, tls));
  } else {
    rows.push(row(subject, 'tls', 'warn', 'plain http: traffic and credentials are not encrypted', `Use https in ${tls.where} (http is meant for simulators only).`));
  }
  return rows;
}

function tlsRow(subject: string, ep: Endpoint, cert: CertificateFacts, tls: TlsPolicy): CheckRow {
  const days = Math.floor((cert.validTo.getTime() - Date.now()) / 86_400_000);
  const facts = `subject ${cert.subject}, issuer ${cert.issuer}, expires ${cert.validTo.toISOString().slice(0, 10)} (${days} days), sha256 ${cert.sha256}`;
  if (days < 0) {
    return row(subject, 'tls', 'fail', `certificate expired: ${facts}`, `Renew the certificate of ${ep.host}; clients refuse an expired certificate.`);
  }
  const problem = cert.verifyError ? explainVerifyError(cert) : cert.hostnameError ? `the certificate does not name ${ep.host} (${cert.hostnameError})` : undefined;
  if (problem) {
    const caFix = tls.caFile
      ? `ca_file ${tls.caFile} does not verify it: point ca_file at the CA that signed this certificate`
      : `put the CA that signed it (or the certificate itself, when self-signed) in a PEM file and set ca_file in ${tls.where}`;
    const hostFix = cert.hostnameError && !cert.verifyError ? `use a host name the certificate names (${cert.subject}) in ${tls.where}, or reissue the certificate with ${ep.host} in its subjectAltName` : caFix;
    const fix = `${hostFix}. Last resort (trusts anyone on the path): ${tls.offSetting}.`;
    return row(subject, 'tls', tls.verifies ? 'fail' : 'warn', `${problem}${tls.verifies ? '' : ' (not verified by this configuration)'}; ${facts}`, fix);
  }
  if (!tls.verifies) {
    return row(subject, 'tls', 'warn', `certificate is valid but this configuration does not verify it; ${facts}`,
      `Turn verification on in ${tls.where} (verify_tls: true, with ca_file when the CA is private).`);
  }
  if (days < EXPIRY_WARN_DAYS) return row(subject, 'tls', 'warn', `certificate expires soon: ${facts}`, `Renew the certificate of ${ep.host} within ${days} days.`);
  return row(subject, 'tls', 'ok', `verified${tls.caFile ? ` with ${tls.caFile}` : ''}; ${facts}`);
}

function explainVerifyError(cert: CertificateFacts): string {
  switch (cert.verifyError) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'the certificate is self-signed (as appliances ship) and not trusted';
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
      return `the certificate is signed by a CA this machine does not trust (${cert.issuer}; ${cert.verifyError})`;
    case 'CERT_HAS_EXPIRED':
      return 'the certificate has expired';
    default:
      return `the certificate does not verify (${cert.verifyError})`;
  }
}

export function clockRow(subject: string, probe: ProbeResult): CheckRow {
  if (probe.clockSkewMs === undefined) return skipped(subject, 'clock', probe.tcpError || probe.dnsError ? 'no connection' : 'the server sent no Date header');
  const s = Math.round(probe.clockSkewMs / 1000);
  const detail = `server clock is ${Math.abs(s)} s ${s >= 0 ? 'ahead of' : 'behind'} this machine`;
  const abs = Math.abs(probe.clockSkewMs);
  // A Date header has 1 s resolution, so anything under 2 s is agreement.
  if (abs < 2_000) return row(subject, 'clock', 'ok', 'server clock agrees with this machine (within the 1 s resolution of its Date header)');
  if (abs >= SKEW_FAIL_MS) return row(subject, 'clock', 'fail', detail, 'Sync both clocks with NTP: login tokens and checkpoint times are refused or misread beyond a few minutes of skew.');
  if (abs >= SKEW_WARN_MS) return row(subject, 'clock', 'warn', detail, 'Sync both clocks with NTP.');
  return row(subject, 'clock', 'ok', detail);
}
