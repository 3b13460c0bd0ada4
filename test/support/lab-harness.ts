// The whole product against the simulated lab: startLab (what --lab runs) + startRuntime (what
// main runs) + a real MCP Client over the in-memory transport. Nothing is mocked; the simulators
// speak vim25 SOAP and ZVM REST over https on 127.0.0.1.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll } from 'vitest';
import { connectValidatingClient, type TestElicitation } from './mcp-client.js';
import { startLab, type LabOptions, type TestLab } from '../../src/lab/testing/index.js';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { PolicyFileStore } from '../../src/config/policy-store.js';
import type { Logger } from '../../src/core/logger.js';
import type { AnyTool } from '../../src/tools/define.js';
import { callTool, silentLogger, tempDir, type CallOptions, type CallResult } from './harness.js';
import type { DownstreamServerConfig } from '../../src/config/downstream-config.js';

export interface LabHarness {
  lab: TestLab;
  runtime: Runtime;
  client: Client;
  dir: string;
  auditPath: string;
  /** Set when the harness was given policyYaml: edit it to hot-reload. */
  policyPath?: string;
  /** Runs fn under another policy (hot-reloaded), then puts the harness's policyYaml back. */
  withPolicy(yaml: string, fn: () => Promise<void>): Promise<void>;
  auditLines(): Array<Record<string, unknown>>;
  /** A tools/call with a 120 s timeout that progress restarts (opts add onprogress, a signal, or override those). */
  call(name: string, args?: Record<string, unknown>, opts?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

export interface LabHarnessOptions extends Omit<LabOptions, 'stateDir' | 'policy'> {
  /** Replaces the bundled lab policy. */
  policyYaml?: string;
  env?: Record<string, string>;
  fanOutTimeoutMs?: number;
  /** State folder (audit log, catalog and FLR state files); reuse one to model a restart. */
  dir?: string;
  /** Receives the server's log lines (default: silent). */
  logger?: Logger;
  /** Bound of the guard's checkpoint wait (lab mode's default is 60 s). */
  checkpointTimeoutMs?: number;
  /** Edits the lab's configuration before the runtime starts (extra targets, site scopes). */
  editConfig?: (lab: TestLab) => void;
  /** Tools beyond what lab mode registers (a test's own declarations). */
  extraTools?: AnyTool[];
  /** The clock of the confirmation store and rate limiter (default Date.now). */
  clock?: () => number;
  /** Downstream servers put behind the gateway (besides guestfs with guestfs: true). */
  downstream?: DownstreamServerConfig[];
  /** Secret values config.json would have registered (expanded downstream env references). */
  inlineCredentials?: Record<string, string>;
  downstreamBackoffMs?: number;
  /** The name the MCP client gives in initialize (default 'lab-test'). */
  clientName?: string;
  /** The client can be asked (elicitation), and this is how its user answers. */
  elicitation?: TestElicitation;
}

export async function startLabHarness(opts: LabHarnessOptions = {}): Promise<LabHarness> {
  const dir = opts.dir ?? tempDir('zr-lab-');
  let policyPath: string | undefined;
  let policy;
  if (opts.policyYaml !== undefined) {
    policyPath = join(dir, 'policy.yaml');
    writeFileSync(policyPath, opts.policyYaml);
    policy = new PolicyFileStore(policyPath, true);
  }
  // Every toolset unless a test picks some: suites exercise every tool; the budget test picks the default.
  const lab = await startLab({ ...opts, stateDir: dir, ...(policy ? { policy } : {}), env: { TOOLSETS: 'all', ...(opts.env ?? {}) } });
  if (opts.checkpointTimeoutMs !== undefined) lab.config.app.guard.checkpointTimeoutMs = opts.checkpointTimeoutMs;
  if (opts.downstream) lab.config.app.downstream = [...lab.config.app.downstream, ...opts.downstream];
  opts.editConfig?.(lab);
  const env = { ...(opts.env ?? {}), ...lab.env };
  const secrets = envSecretSource({ ...env, ...lab.config.app.inlineCredentials, ...(opts.inlineCredentials ?? {}) });
  let runtime: Runtime;
  try {
    runtime = await startRuntime({
      config: lab.config, secrets, logger: opts.logger ?? silentLogger,
      extraTools: [...lab.extraTools, ...(opts.extraTools ?? [])], extraBuiltInCatalog: lab.extraBuiltInCatalog,
      // The simulators run on this process's event loop (see RuntimeOptions.probeTargetsAtStart);
      // startup probes are tested on their own in test/vsphere/target-breaker.test.ts.
      probeTargetsAtStart: false,
      ...(opts.fanOutTimeoutMs ? { fanOutTimeoutMs: opts.fanOutTimeoutMs } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.downstreamBackoffMs !== undefined ? { downstreamBackoffMs: opts.downstreamBackoffMs } : {}),
    });
  } catch (err) {
    await lab.stop();
    throw err;
  }
  // The server answers at once; a test starts once every downstream has come up (or failed to).
  await runtime.downstreamStarted;
  const client = await connectValidatingClient(runtime.built.newSession(), opts.clientName ?? 'lab-test', opts.elicitation);
  const auditPath = lab.config.settings.auditLogPath;
  return {
    lab, runtime, client, dir, auditPath, ...(policyPath ? { policyPath } : {}),
    async withPolicy(yaml, fn) {
      if (!policyPath || opts.policyYaml === undefined) throw new Error('withPolicy needs a harness started with policyYaml');
      writeFileSync(policyPath, yaml);
      try {
        await fn();
      } finally {
        writeFileSync(policyPath, opts.policyYaml);
      }
    },
    auditLines: () => (existsSync(auditPath) ? readFileSync(auditPath, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []),
    call: (name, args, callOpts = {}) => callTool(client, name, args, { timeout: 120_000, resetTimeoutOnProgress: true, ...callOpts }),
    async close() {
      await client.close().catch(() => undefined);
      await runtime.shutdown();
      await lab.stop();
    },
  };
}

/**
 * A lab per test, for a file whose tests run at once (describe.concurrent): the function returned
 * starts one with `start` (the harness and whatever the file sets up on it), and the file's afterAll
 * closes every lab it started. Call it at the top of the file.
 */
export function labPerTest<A extends unknown[]>(start: (...args: A) => Promise<LabHarness>): (...args: A) => Promise<LabHarness> {
  const opened: LabHarness[] = [];
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((h) => h.close()));
  });
  return async (...args) => {
    const h = await start(...args);
    opened.push(h);
    return h;
  };
}
