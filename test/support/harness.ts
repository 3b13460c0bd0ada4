// Builds the real server (buildServer) around given tools and configuration, connects a real MCP
// Client over the SDK's in-memory transport, and exposes the audit file for assertions.
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { connectValidatingClient } from './mcp-client.js';
import { buildServer, type BuiltServer, type ServerDeps } from '../../src/app/build-server.js';
import { readSettings, type Settings } from '../../src/config/settings.js';
import { AuditWriter, type AuditSink } from '../../src/audit/audit-writer.js';
import { envSecretSource, type SecretSource } from '../../src/core/secrets.js';
import { PolicyFileStore, type PolicySource } from '../../src/config/policy-store.js';
import type { TargetEntry } from '../../src/config/targets.js';
import type { AnyTool } from '../../src/tools/define.js';
import { silentLogger } from '../../src/core/logger.js';
import { unfenced } from '../../src/mcp/output/untrusted.js';

export { silentLogger };

export function tempDir(prefix = 'zr-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface HarnessOptions {
  tools: AnyTool[];
  env?: Record<string, string>;
  policyYaml?: string;
  policy?: PolicySource;
  targets?: TargetEntry[];
  audit?: AuditSink;
  secrets?: SecretSource;
  webUi?: { enabled: boolean; url?: string };
  clientName?: string;
  deps?: Partial<ServerDeps>;
}

export interface Harness {
  client: Client;
  built: BuiltServer;
  dir: string;
  auditPath: string;
  policyPath: string;
  settings: Settings;
  auditLines(): Array<Record<string, unknown>>;
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

export interface CallResult {
  isError: boolean;
  data: Record<string, unknown>;
  text: string;
}

export const TEST_TARGETS: TargetEntry[] = [
  { name: 'dev-vc1', host: 'vcenter-dev1.example.test', protocol: 'https', insecure: false, credentialPrefix: 'VC_DEV1', tags: ['env:dev'], standaloneHost: false },
  { name: 'prod-vc1', host: 'vcenter-prod1.example.test', protocol: 'https', insecure: false, credentialPrefix: 'VC_PROD1', tags: ['env:prod'], standaloneHost: false },
];

export async function startHarness(opts: HarnessOptions): Promise<Harness> {
  const dir = tempDir();
  const auditPath = join(dir, 'audit.jsonl');
  const policyPath = join(dir, 'policy.yaml');
  if (opts.policyYaml !== undefined) writeFileSync(policyPath, opts.policyYaml);
  // Every set: the test-only tools are in `lab`, which the default does not serve.
  const env = { AUDIT_LOG_PATH: auditPath, TOOLSETS: 'all', ...(opts.env ?? {}) };
  const { settings } = readSettings(env);
  settings.auditLogPath = auditPath;
  const secrets = opts.secrets ?? envSecretSource(env);
  const audit = opts.audit ?? new AuditWriter(auditPath, () => secrets.knownValues());
  const built = buildServer({
    settings,
    targets: opts.targets ?? TEST_TARGETS,
    policy: opts.policy ?? new PolicyFileStore(policyPath, false),
    audit,
    secrets,
    logger: silentLogger,
    tools: opts.tools,
    ...(opts.webUi ? { webUi: opts.webUi } : {}),
    ...(opts.deps ?? {}),
  });
  const client = await connectValidatingClient(built.newSession(), opts.clientName ?? 'test-client');
  return {
    client, built, dir, auditPath, policyPath, settings,
    auditLines: () => (existsSync(auditPath) ? readFileSync(auditPath, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []),
    call: (name, args) => callTool(client, name, args),
    async close() {
      await client.close();
      await built.close();
    },
  };
}

/** How one tools/call is sent: the client's own request options (timeout, progress, signal). */
export type CallOptions = NonNullable<Parameters<Client['callTool']>[1]>;

/** One tools/call through a real (SDK v2) client, read by readCallResult. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}, opts?: CallOptions): Promise<CallResult> {
  return readCallResult(await client.callTool({ name, arguments: args }, opts));
}

/** A tools/call result of any client (SDK v1 or v2) as a CallResult: structuredContent, else the JSON of the (unfenced) text. */
export function readCallResult(result: unknown): CallResult {
  const res = result as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  const text = ((res.content ?? []) as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');
  const data = (res.structuredContent as Record<string, unknown> | undefined) ?? (JSON.parse(unfenced(text)) as Record<string, unknown>);
  return { isError: res.isError === true, data, text };
}

/** The AppError `p` rejects with (fails the test when it resolves or rejects with anything else). */
export async function caught(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a failure');
}

export function errorOf(r: CallResult): { code: string; message: string; retryable: boolean; hint?: string; details?: Record<string, unknown> } {
  if (!r.isError) throw new Error(`expected an error, got ${r.text}`);
  return (r.data as { error: { code: string; message: string; retryable: boolean; hint?: string } }).error;
}
