// The network half of a check, without credentials: resolve the name, open TCP, and (for https)
// complete a TLS handshake that never rejects, so the certificate can be inspected and explained
// rather than just refused. One HEAD request on the same connection reads the server's clock from
// its Date header; no credential goes over this connection.
import { lookup } from 'node:dns/promises';
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';

export interface Endpoint {
  host: string;
  port: number;
  tls: boolean;
  /** PEM text of the CA to trust (ca_file), else the system CAs. */
  ca?: string;
}

export interface CertificateFacts {
  subject: string;
  issuer: string;
  validTo: Date;
  sha256: string;
  sha1: string;
  selfSigned: boolean;
  /** Why verification failed against the configured CAs (Node's code), if it did. */
  verifyError?: string;
  /** Set when the certificate does not name the host we connected to. */
  hostnameError?: string;
}

export interface ProbeResult {
  addresses?: string[];
  dnsError?: string;
  tcpError?: string;
  tlsError?: string;
  certificate?: CertificateFacts;
  /** The server's Date header minus our clock (ms), when the server sent one. */
  clockSkewMs?: number;
}

const TIMEOUT_MS = 5_000;

export async function probeEndpoint(ep: Endpoint): Promise<ProbeResult> {
  const out: ProbeResult = {};
  try {
    out.addresses = isIP(ep.host) ? [ep.host] : (await lookup(ep.host, { all: true })).map((a) => a.address);
  } catch (err) {
    out.dnsError = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return out;
  }
  let socket: Socket | TLSSocket;
  try {
    socket = ep.tls ? await openTls(ep) : await openTcp(ep);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stage?: string };
    if (e.stage === 'tls') out.tlsError = e.code ?? e.message;
    else out.tcpError = e.code ?? e.message;
    return out;
  }
  if (ep.tls) out.certificate = certificateFacts(socket as TLSSocket, ep.host);
  const date = await headDate(socket, ep.host).catch(() => undefined);
  if (date) out.clockSkewMs = date.getTime() - Date.now();
  return out;
}

function openTcp(ep: Endpoint): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect({ host: ep.host, port: ep.port, timeout: TIMEOUT_MS });
    s.once('connect', () => resolve(s));
    s.once('timeout', () => { s.destroy(); reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })); });
    s.once('error', reject);
  });
}

function openTls(ep: Endpoint): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    let connected = false;
    const s = tlsConnect({
      host: ep.host, port: ep.port, timeout: TIMEOUT_MS, rejectUnauthorized: false,
      ...(isIP(ep.host) ? {} : { servername: ep.host }), ...(ep.ca ? { ca: ep.ca } : {}),
    });
    s.once('connect', () => { connected = true; });
    s.once('secureConnect', () => resolve(s));
    s.once('timeout', () => { s.destroy(); reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT', stage: connected ? 'tls' : 'tcp' })); });
    s.once('error', (err) => reject(Object.assign(err, { stage: connected ? 'tls' : 'tcp' })));
  });
}

function certificateFacts(s: TLSSocket, host: string): CertificateFacts {
  const cert = s.getPeerCertificate(false) as PeerCertificate;
  const name = (o: Record<string, unknown> | undefined) => (o ? String(o.CN ?? Object.values(o).join(', ')) : '');
  const facts: CertificateFacts = {
    subject: name(cert.subject as unknown as Record<string, unknown>),
    issuer: name(cert.issuer as unknown as Record<string, unknown>),
    validTo: new Date(cert.valid_to),
    sha256: cert.fingerprint256,
    sha1: cert.fingerprint,
    selfSigned: JSON.stringify(cert.subject) === JSON.stringify(cert.issuer),
  };
  if (!s.authorized && s.authorizationError) facts.verifyError = String(s.authorizationError);
  const identity = checkServerIdentity(host, cert);
  if (identity) facts.hostnameError = identity.message;
  return facts;
}

/** Sends `HEAD /` and resolves the Date header of whatever the server answers (404 included). */
function headDate(s: Socket, host: string): Promise<Date | undefined> {
  return new Promise((resolve) => {
    let buf = '';
    const done = (d?: Date) => { s.destroy(); resolve(d); };
    s.setTimeout(TIMEOUT_MS, () => done());
    s.on('data', (chunk: Buffer) => {
      buf += chunk.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /^date:\s*(.+)$/im.exec(buf.slice(0, end));
      const d = m ? new Date(m[1]!.trim()) : undefined;
      done(d && !Number.isNaN(d.getTime()) ? d : undefined);
    });
    s.on('error', () => done());
    s.on('close', () => done());
    s.write(`HEAD / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}
