// The shape of one vSphere target, as the foundation's targets.yaml loader produces it. The vim25
// client reads only this; it never reads the environment or files itself (credentials come
// through the injected SecretSource, the CA file is read once when the target's pool is built).

export interface TargetConfig {
  /** The name agents and policy use (`prod-vc`). */
  name: string;
  /** vCenter / ESXi host name or address. */
  host: string;
  /** Default 443 for https, 80 for http. */
  port?: number;
  /** `http` only for simulators; default `https`. */
  protocol?: 'https' | 'http';
  /** Skip TLS verification (self-signed lab appliances). */
  insecure: boolean;
  /** PEM file with the CA that signed vCenter's certificate; otherwise the system CAs. */
  caFile?: string;
  /** `{credentialPrefix}_USER` / `{credentialPrefix}_PASSWORD` hold the login. */
  credentialPrefix: string;
  tags: string[];
  /** A standalone ESXi host rather than a vCenter. */
  standaloneHost: boolean;
}
