#!/usr/bin/env node
// The whole loop, end to end, as a user would see it: spawn `zerto-rewind-mcp --lab`, drive it as a
// real MCP client over stdio, and show that the Zerto journal undoes a bad change to a guest file
// made through another MCP server, the real filesystem server, put behind this one (the gateway):
//   find protection -> bad write through guestfs (checkpoint pinned automatically, first)
//   -> undo_change(change_id) proposes putting the file back -> a human confirms -> the file in
//   the guest is the original again (read back through guestfs, sha256 equal)
// Exits non-zero if any step fails. `npm run demo` runs it; `npm test` runs it too.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fencedValue } from './untrusted-text.mjs';

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

/** The raw MCP result: a proxied tool answers with the downstream's own result, fenced as data, plus `_meta`. */
async function callRaw(client, name, args) {
  const res = await client.callTool({ name, arguments: args }, undefined, {
    timeout: 60_000,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: 180_000,
    onprogress: (p) => p.message && out(`    .. ${p.message}`),
  });
  if (res.isError) throw new Error(`${name} failed: ${res.content.map((c) => JSON.stringify(fencedValue(c.text ?? ''))).join('')}`);
  return res;
}

/** This server's own tools answer with the same JSON in structuredContent and in text. */
async function call(client, name, args) {
  const res = await callRaw(client, name, args);
  return res.structuredContent ?? fencedValue(res.content.map((c) => c.text ?? '').join(''));
}

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
/** A downstream text block as the downstream wrote it (the gateway fences each as a JSON string). */
const textOf = (block) => fencedValue(block.text);
const quote = (text) => text.trimEnd().split('\n').map((l) => `    | ${l}`).join('\n');

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
    const root = await run('The gateway: guestfs (the npm filesystem MCP server) runs behind this server, bound to ' + VM, async () => {
      // The server answered initialize without waiting for guestfs; a call to one of its tools
      // waits for it to come up (its tools are announced with tools/list_changed).
      const dirs = await callRaw(client, 'guestfs__list_allowed_directories', {});
      const { servers } = await call(client, 'list_downstream', {});
      const gs = servers.find((x) => x.name === 'guestfs');
      if (!gs || gs.state !== 'ready') throw new Error(`guestfs is not ready: ${JSON.stringify(servers)}`);
      out(`    downstream ${gs.name}: ${gs.state}, ${gs.tool_count} tools re-exported as guestfs__<tool>, bound to VM ${gs.vm}`);
      const dir = textOf(dirs.content[0]).split('\n').map((l) => l.trim()).filter((l) => l.startsWith('/')).at(0);
      if (!dir) throw new Error(`no allowed directory in ${JSON.stringify(dirs.content)}`);
      out(`    ${VM}'s / is served at ${dir}`);
      return dir;
    });
    const file = `${root}${PATH}`;

    const original = await run(`Read ${PATH} on ${VM} through guestfs (what a healthy guest looks like)`, async () => {
      const r = await callRaw(client, 'guestfs__read_text_file', { path: file });
      const text = textOf(r.content[0]);
      out(quote(text));
      out(`    sha256 ${sha256(text)}`);
      return text;
    });

    await run(`Find the VPGs protecting ${VM}`, async () => {
      const r = await call(client, 'zerto_find_protection', { vm: VM });
      out(`    VM ${r.vm.name} (${r.vm.vm_identifier}) matched by ${r.matched_by}`);
      for (const v of r.vpgs) out(`    VPG ${v.name}: locally replicated=${v.locally_replicated}, FLR possible=${v.flr_possible}`);
    });

    const bad = await run('The agent writes a bad config with guestfs__write_file: the gateway pins a checkpoint first, then forwards', async () => {
      const r = await callRaw(client, 'guestfs__write_file', { path: file, content: BAD, change_id: changeId });
      const facts = r._meta?.['zerto-rewind/gateway'];
      if (facts?.checkpoint?.status !== 'checkpointed') throw new Error(`expected a checkpoint before the write: ${JSON.stringify(r)}`);
      for (const c of r.content) out(`    ${textOf(c)}`);
      out(`    checkpoint on ${facts.checkpoint.vpgs.join(', ')}`);
      out(`    tag: ${facts.checkpoint.tag}`);
      const now = await callRaw(client, 'guestfs__read_text_file', { path: file });
      out(quote(textOf(now.content[0])));
      if (textOf(now.content[0]) === original) throw new Error('the bad write did not land');
      out(`    change_id: ${facts.audit_id}`);
      return { changeId: facts.audit_id };
    });

    const proposal = await run(`undo_change(change_id) proposes the inverse, item by item (two-phase: nothing happens yet)`, async () => {
      const r = await call(client, 'undo_change', { change_id: bad.changeId });
      out(`    ${r.summary}`);
      for (const item of r.affected.filter((a) => a.type === 'undo_item')) out(`    - ${item.name} [${item.plan}; from ${item.from}]`);
      return r;
    });

    const undone = await run('A human confirms (confirm_action): the file comes back from the journal and is written into the guest through guestfs', async () => {
      const r = await call(client, 'confirm_action', { token: proposal.token });
      for (const item of r.result.items) out(`    ${item.status}: ${item.says}${item.sha256 ? ` (sha256 ${item.sha256.slice(0, 16)}...)` : ''}${item.reason ? ` - ${item.reason}` : ''}`);
      if (r.result.items.some((i) => i.status !== 'done')) throw new Error(`not every item was undone: ${JSON.stringify(r.result.items)}`);
      return r.result;
    });

    await run(`${PATH} in the guest equals the original again (read back through guestfs, sha256)`, async () => {
      const now = textOf((await callRaw(client, 'guestfs__read_text_file', { path: file })).content[0]);
      out(quote(now));
      if (now !== original || sha256(now) !== sha256(original)) throw new Error(`the guest file differs from the original:\n${now}`);
      out(`    sha256 ${sha256(now)} = ${sha256(original)} (the original)`);
      out(`    the undo is itself a change: undo_change(change_id="${undone.audit_id}") would put the bad write back.`);
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
