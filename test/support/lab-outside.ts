// The lab outside the server process: the simulators run in the test process, and the server is
// the shipped binary (`dist/main.js`, NOT `--lab`) configured as an operator would configure it
// for real appliances: targets.yaml, config.json (ZERTO_REWIND_CONFIG), credentials in the
// environment, the lab's CA file. Killing that server leaves the lab, and whatever the server left
// on it (an FLR mount), there to be observed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LAB_CA_FILE, LAB_POLICY_FILE } from '../../src/lab/lab-mode.js';
import type { TestLab } from '../../src/lab/testing/index.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface OutsideServerConfig {
  /** The state folder: audit log, FLR session registry, catalog. */
  dir: string;
  auditPath: string;
  restoreDir: string;
  /** Everything the server process gets in its environment. */
  env: Record<string, string>;
}

/** Writes targets.yaml and config.json for `lab` under `dir` and returns the server's environment. */
export function configureServerForLab(lab: TestLab, dir: string, extraEnv: Record<string, string> = {}): OutsideServerConfig {
  const conf = join(dir, 'conf');
  mkdirSync(conf, { recursive: true });
  const restoreDir = join(dir, 'restored');
  // JSON is YAML: the targets file is written as a flow mapping.
  const targets = lab.config.targets.map((t) => ({
    name: t.name, host: t.host, port: t.port, protocol: t.protocol, ca_file: LAB_CA_FILE,
    credential_env_prefix: t.credentialPrefix, tags: t.tags,
  }));
  writeFileSync(join(conf, 'targets.yaml'), `${JSON.stringify({ targets }, null, 2)}\n`);
  const sites = lab.config.app.sites.map((s) => ({
    name: s.name, url: s.url, client_id: s.clientId, credential_env_prefix: s.credentialPrefix,
    ca_file: LAB_CA_FILE, vcenter_targets: s.vcenterTargets,
  }));
  writeFileSync(join(conf, 'config.json'), `${JSON.stringify({
    sites, restore_dir: restoreDir, guard: { checkpoint_timeout_seconds: 30, poll_interval_ms: 100 },
  }, null, 2)}\n`);
  const auditPath = join(dir, 'audit.jsonl');
  return {
    dir, auditPath, restoreDir,
    env: {
      PATH: process.env.PATH ?? '',
      TARGETS_FILE: join(conf, 'targets.yaml'),
      ZERTO_REWIND_CONFIG: join(conf, 'config.json'),
      POLICY_FILE: LAB_POLICY_FILE,
      AUDIT_LOG_PATH: auditPath,
      LOG_LEVEL: 'warn',
      ...lab.env,
      ...extraEnv,
    },
  };
}

export interface OutsideServer {
  client: Client;
  /** The server process (node dist/main.js itself, no shell in between). */
  pid: number;
  stderr(): string;
  close(): Promise<void>;
}

/** Starts `node dist/main.js` with `cfg` and connects a real MCP client over its stdio. */
export async function startOutsideServer(cfg: OutsideServerConfig): Promise<OutsideServer> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], cwd: cfg.dir, env: cfg.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  const client = new Client({ name: 'fault-test', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    // A server that dies while starting says why on stderr: put it in the failure.
    throw new Error(`the server did not start (${String(err)}); its stderr:\n${stderr || '(empty)'}`, { cause: err });
  }
  return {
    client, pid: transport.pid!, stderr: () => stderr,
    close: () => client.close(),
  };
}
