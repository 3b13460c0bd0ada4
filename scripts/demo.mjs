#!/usr/bin/env node
// The whole loop, end to end, as a user would see it: spawn `zerto-rewind-mcp --lab`, drive it as a
// real MCP client over stdio, and show that the Zerto journal undoes a bad change to a guest file.
//   find protection -> guard (tagged checkpoint) -> bad change -> human confirms -> recover -> equal
// Exits non-zero if any step fails. `npm run demo` runs it; `npm test` runs it too.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const VM = process.env.DEMO_VM ?? 'app-01';
const PATH = process.env.DEMO_PATH ?? '/etc/app.conf';
const BAD = 'listen_port = 0   # an agent "optimised" this\nmax_connections = -1\n';
const out = (s) => process.stdout.write(`${s}\n`);

let step = 0;
async function run(title, fn) {
  step += 1;
  out(`\n[${step}] ${title}`);
  try {
    const value = await fn();
    return value;
  } catch (err) {
    out(`    FAILED: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
}

async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args }, undefined, {
    timeout: 60_000,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: 180_000,
    onprogress: (p) => p.message && out(`    .. ${p.message}`),
  });
  const text = res.content.map((c) => c.text ?? '').join('');
  const data = res.structuredContent ?? JSON.parse(text);
  if (res.isError) throw new Error(`${name} failed: ${text}`);
  return data;
}

async function main() {
  const stateDir = mkdtempSync(join(tmpdir(), 'zerto-rewind-demo-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--lab'],
    env: { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: join(stateDir, 'audit.jsonl'), LOG_LEVEL: 'warn' },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'zerto-rewind-demo', version: '1.0.0' });
  await client.connect(transport);
  const changeId = `demo-${Date.now()}`;
  try {
    const original = await run(`Read ${PATH} on ${VM} (what a healthy guest looks like)`, async () => {
      const r = await call(client, 'lab_read_guest_file', { vm: VM, path: PATH });
      out(r.content.trimEnd().split('\n').map((l) => `    | ${l}`).join('\n'));
      return r.content;
    });

    await run(`Find the VPGs protecting ${VM}`, async () => {
      const r = await call(client, 'zerto_find_protection', { vm: VM });
      out(`    VM ${r.vm.name} (${r.vm.vm_identifier}) matched by ${r.matched_by}`);
      for (const v of r.vpgs) out(`    VPG ${v.name}: locally replicated=${v.locally_replicated}, FLR possible=${v.flr_possible}`);
    });

    const tag = await run('Guard before the change: pin a tagged checkpoint on every VPG and wait until listed', async () => {
      const r = await call(client, 'zerto_guard_before_mutate', {
        tool: 'lab_write_guest_file', args: { vm: VM, path: PATH, content: BAD }, change_id: changeId,
      });
      if (!r.guarded) throw new Error(`expected the write to be guarded: ${JSON.stringify(r)}`);
      const pinned = r.vms[0];
      for (const c of pinned.checkpoints) out(`    checkpoint ${c.checkpoint_id} on ${c.vpg} at ${c.timestamp}`);
      out(`    tag: ${pinned.tag}`);
      return pinned.tag;
    });

    await run('The agent writes a bad config into the guest', async () => {
      const r = await call(client, 'lab_write_guest_file', { vm: VM, path: PATH, content: BAD, change_id: changeId });
      out(`    wrote ${r.bytes} bytes; checkpoint: ${r.checkpoint?.status} (${r.checkpoint?.message})`);
      const now = await call(client, 'lab_read_guest_file', { vm: VM, path: PATH });
      out(now.content.trimEnd().split('\n').map((l) => `    | ${l}`).join('\n'));
      if (now.content === original) throw new Error('the bad write did not land');
    });

    const proposal = await run('Propose recovering the file from the tag (two-phase: nothing happens yet)', async () => {
      const r = await call(client, 'zerto_recover_file', { vm: VM, path: PATH, tag });
      out(`    ${r.summary}`);
      out(`    ${r.note}`);
      return r;
    });

    const recovered = await run('A human confirms (confirm_action), and the file comes back from the journal', async () => {
      const r = await call(client, 'confirm_action', { token: proposal.token });
      const res = r.result;
      out(`    ${res.guest_path} at checkpoint ${res.checkpoint.id} (${res.checkpoint.timestamp}): ${res.size} bytes, sha256 ${res.sha256.slice(0, 16)}...`);
      out(`    FLR session ${res.session_id}: ${res.unmount.status}`);
      out(res.content.trimEnd().split('\n').map((l) => `    | ${l}`).join('\n'));
      return res.content;
    });

    await run('The recovered content equals the original', async () => {
      if (recovered !== original) throw new Error(`recovered content differs from the original:\n${recovered}`);
      out('    identical: the journal was the undo button.');
    });
  } finally {
    await client.close();
  }
  out('\nDEMO OK');
  return 0;
}

main().then((code) => process.exit(code), (err) => {
  out(`\nDEMO FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
