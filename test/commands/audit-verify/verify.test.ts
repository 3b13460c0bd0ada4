// `audit verify`: an intact rotated set verifies with counts; an edited, deleted or inserted line,
// and a rotated file missing from the set, are each reported at the first line that breaks.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AuditWriter } from '../../../src/audit/audit-writer.js';
import { auditStartup, findLeftOpen } from '../../../src/audit/server-lines.js';
import { verifyAuditFiles } from '../../../src/commands/audit-verify/verify.js';
import { tempDir } from '../../support/harness.js';

const BIN = fileURLToPath(new URL('../../../dist/main.js', import.meta.url));

/** Three files, as logrotate leaves them: audit.jsonl.2 (oldest), audit.jsonl.1, audit.jsonl. */
async function rotatedSet(): Promise<string[]> {
  const dir = tempDir('zr-verify-');
  const path = join(dir, 'audit.jsonl');
  const w = new AuditWriter(path, () => []);
  let n = 0;
  const some = async (k: number) => {
    for (let i = 0; i < k; i++, n++) await w.write({ id: `c${n}`, target: 't', tool: 'list_vms', phase: 'call', identity: 'c/1', args: { n } });
  };
  await some(4);
  renameSync(path, `${path}.1`);
  await some(3);
  renameSync(`${path}.1`, `${path}.2`);
  renameSync(path, `${path}.1`);
  await some(5);
  await w.close();
  return [`${path}.2`, `${path}.1`, path];
}

function editLine(path: string, index: number, edit: (line: string) => string | undefined): void {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const out = lines.flatMap((l, i) => (i === index ? [edit(l)].filter((x): x is string => x !== undefined) : [l]));
  writeFileSync(path, `${out.join('\n')}\n`);
}

describe('audit verify', () => {
  it('an intact rotated set is OK, with counts; the command exits 0', async () => {
    const files = await rotatedSet();
    const report = await verifyAuditFiles(files);
    expect(report).toMatchObject({ ok: true, lines: 12 });
    expect(report.files.map((f) => f.lines)).toEqual([4, 3, 5]);
    const out = execFileSync(process.execPath, [BIN, 'audit', 'verify', ...files], { encoding: 'utf8' });
    expect(out).toMatch(/^OK: 3 file\(s\), 12 lines, chain intact/);
  });

  it('an edited line breaks the chain at the line after it; the command exits 1 naming it', async () => {
    const files = await rotatedSet();
    editLine(files[1]!, 1, (l) => l.replace('"n":5', '"n":50'));
    const report = await verifyAuditFiles(files);
    expect(report.ok).toBe(false);
    expect(report.problem).toMatchObject({ path: files[1], line: 3 });
    const run = spawnSync(process.execPath, [BIN, 'audit', 'verify', ...files], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`BROKEN: ${files[1]} line 3: prev does not match`);
  });

  it('a deleted line and an inserted line are both caught', async () => {
    const deleted = await rotatedSet();
    editLine(deleted[2]!, 2, () => undefined);
    expect((await verifyAuditFiles(deleted)).problem).toMatchObject({ path: deleted[2], line: 3 });
    const inserted = await rotatedSet();
    editLine(inserted[0]!, 1, (l) => `${l}\n${l.replace('"c1"', '"forged"')}`);
    expect((await verifyAuditFiles(inserted)).problem).toMatchObject({ path: inserted[0], line: 3 });
  });

  it('a rotated file missing from the set is reported as such', async () => {
    const [oldest, , newest] = await rotatedSet();
    const report = await verifyAuditFiles([oldest!, newest!]);
    expect(report.ok).toBe(false);
    expect(report.problem).toMatchObject({ path: newest, line: 1 });
    expect(report.problem!.reason).toMatch(/rotated file between them is missing/);
  });

  it('misuse exits 2 with the usage', () => {
    const run = spawnSync(process.execPath, [BIN, 'audit'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('audit verify FILE...');
  });
});

describe('startup closes what the previous process left open', () => {
  it('a proposal still open and a change still executing are closed once, after the startup line', async () => {
    const dir = tempDir('zr-startup-');
    const path = join(dir, 'audit.jsonl');
    const first = new AuditWriter(path, () => []);
    await auditStartup(first, { version: 't', lab: true });
    const base = { target: 'lab-vc1', identity: 'agent/1' };
    await first.write({ ...base, id: 'p1', tool: 'delete_vm', phase: 'proposed', proposal_id: 'prop-1' });
    await first.write({ ...base, id: 'p2', tool: 'delete_vm', phase: 'proposed', proposal_id: 'prop-2' });
    await first.write({ ...base, id: 'p2', tool: 'delete_vm', phase: 'cancelled', proposal_id: 'prop-2' });
    await first.write({ ...base, id: 'x1', tool: 'power_off_vm', phase: 'executing' });
    await first.write({ ...base, id: 'x2', tool: 'power_on_vm', phase: 'executing' });
    await first.write({ ...base, id: 'x2', tool: 'power_on_vm', phase: 'executed' });
    await first.close(); // no shutdown line: the process "crashed"

    const second = new AuditWriter(path, () => []);
    const { closed } = await auditStartup(second, { version: 't', lab: true });
    const left = await closed;
    await second.close();
    expect(left.proposals.map((p) => p.proposal_id)).toEqual(['prop-1']);
    expect(left.changes.map((c) => c.id)).toEqual(['x1']);
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const tail = lines.slice(-3);
    expect(tail.map((l) => l.phase)).toEqual(['startup', 'expired', 'failed']);
    expect(tail[1]).toMatchObject({ id: 'p1', proposal_id: 'prop-1', tool: 'delete_vm', identity: 'agent/1' });
    expect(tail[2]).toMatchObject({ id: 'x1', detail: { code: 'interrupted' } });
    expect(await findLeftOpen(path)).toEqual({ proposals: [], changes: [] });
    const third = new AuditWriter(path, () => []);
    expect(await (await auditStartup(third, { version: 't', lab: true })).closed).toEqual({ proposals: [], changes: [] });
    await third.close();
    expect((await verifyAuditFiles([path])).ok).toBe(true);
  });
});
