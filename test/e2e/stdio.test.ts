// The built binary, spawned as an MCP client would: JSON-RPC only on stdout, logs on stderr,
// clean exit when stdin closes, and a broken configuration exits non-zero listing every problem.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

interface Run { code: number | null; stdout: string; stderr: string }

function runServer(env: Record<string, string>, cwd: string, stdinLines: string[], opts: { args?: string[]; closeAfterMs?: number; waitForIds?: number[] } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...(opts.args ?? [])], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const pending = new Set(opts.waitForIds ?? []);
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`server did not finish; stderr: ${stderr}`)); }, 30_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      for (const line of stdout.split('\n')) {
        try {
          const msg = JSON.parse(line) as { id?: number };
          if (msg.id !== undefined) pending.delete(msg.id);
        } catch { /* partial line */ }
      }
      if (opts.waitForIds && pending.size === 0) child.stdin.end();
    });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    for (const l of stdinLines) child.stdin.write(`${l}\n`);
    if (!opts.waitForIds) child.stdin.end();
  });
}

const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const listTools = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

function writeConfig(dir: string): void {
  mkdirSync(join(dir, 'conf'), { recursive: true });
  writeFileSync(join(dir, 'conf', 'targets.yaml'), 'targets:\n  - {name: vc-a, host: 127.0.0.1, port: 9, credential_env_prefix: VC_A}\n');
  writeFileSync(join(dir, 'conf', 'config.json'), JSON.stringify({ sites: [], mutating_tools: [] }));
}

describe('stdio binary', () => {
  it('answers initialize and tools/list, writes only JSON-RPC to stdout, exits when stdin closes', async () => {
    const dir = tempDir();
    writeConfig(dir);
    const elsewhere = tempDir();
    const run = await runServer(
      { ZERTO_REWIND_CONFIG: join(dir, 'conf', 'config.json'), TARGETS_FILE: 'targets.yaml', AUDIT_LOG_PATH: 'audit.jsonl', VC_A_PASSWORD: 'never-printed-pw' },
      elsewhere, [init, initialized, listTools], { waitForIds: [1, 2] },
    );
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jsonrpc: '2.0' });
    const list = lines.map((l) => JSON.parse(l) as { id?: number; result?: { tools: Array<{ name: string }> } }).find((m) => m.id === 2)!;
    const names = list.result!.tools.map((t) => t.name);
    expect(names).toContain('list_targets');
    expect(names).not.toContain('delete_vm');
    expect(run.stderr).toContain('ready');
    expect(run.stderr + run.stdout).not.toContain('never-printed-pw');
  });

  it('--help and --version print and exit 0', async () => {
    const help = await runServer({}, tempDir(), [], { args: ['--help'] });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--lab');
    const version = await runServer({}, tempDir(), [], { args: ['--version'] });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('a broken targets.yaml exits non-zero listing every problem', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - name: "bad name!"\n    host: ""\n    credential_env_prefix: x\n');
    const run = await runServer({ TARGETS_FILE: join(dir, 'targets.yaml'), ENABLE_DESTRUCTIVE: 'maybe' }, dir, []);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('targets[0].name');
    expect(run.stderr).toContain('targets[0].host');
    expect(run.stderr).toContain('targets[0].credential_env_prefix');
    expect(run.stderr).toContain('ENABLE_DESTRUCTIVE');
  });

  it('--lab lists malformed settings and exits non-zero instead of guessing', async () => {
    const run = await runServer({ DRY_RUN: 'maybe', AUDIT_LOG_PATH: join(tempDir(), 'a.jsonl') }, tempDir(), [], { args: ['--lab'] });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('DRY_RUN');
  });

  it('refuses to start the approval page without a token', async () => {
    const dir = tempDir();
    writeConfig(dir);
    const run = await runServer({ TARGETS_FILE: join(dir, 'conf', 'targets.yaml'), AUDIT_LOG_PATH: join(dir, 'a.jsonl'), WEB_UI_ENABLED: 'true' }, dir, []);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/WEB_UI_TOKEN/);
  });
});

describe('started by hand', () => {
  it('in a terminal (stdin is a TTY) it says what it is and how to connect a client', async () => {
    // util-linux `script` gives the child a pseudo-terminal, as a human's shell would.
    const dir = tempDir();
    writeConfig(dir);
    const cmd = `${process.execPath} ${BIN}`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', TARGETS_FILE: join(dir, 'conf', 'targets.yaml'), AUDIT_LOG_PATH: join(dir, 'a.jsonl') },
      stdio: ['pipe', 'pipe', 'pipe'], detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    try {
      await expect.poll(() => out, { timeout: 15_000 }).toContain('is an MCP server');
      expect(out).toContain('Claude Desktop, VS Code or Cursor');
    } finally {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }
  });
});
