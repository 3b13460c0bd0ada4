// The audit writer is all or nothing: whole lines or a rejected write, fresh lines after a torn
// tail, the path reopened after rotation or deletion (and a failure when it cannot be), bounded
// values, and `decision` on every line.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AuditWriter, type AuditRecord } from '../../src/audit/audit-writer.js';
import { lineHash } from '../../src/audit/chain.js';
import { verifyAuditFiles } from '../../src/commands/audit-verify/verify.js';
import { tempDir } from '../support/harness.js';

const rec = (id: string, extra: Partial<AuditRecord> = {}): AuditRecord => ({ id, target: 't', tool: 'power_on_vm', phase: 'call', identity: 'c/1', ...extra });
const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const parsed = (path: string) => lines(path).map((l) => JSON.parse(l) as Record<string, unknown>);

function fresh() {
  const dir = tempDir('zr-audit-');
  const path = join(dir, 'audit.jsonl');
  return { dir, path, writer: new AuditWriter(path, () => ['Sup3r-S3cret!pw']) };
}

describe('audit writer: the file at the path', () => {
  it('reopens the path after a rotation (mv): new lines land in the new file and chain onto the old one', async () => {
    const { path, writer } = fresh();
    await writer.write(rec('a'));
    await writer.write(rec('b'));
    renameSync(path, `${path}.1`);
    await writer.write(rec('c'));
    await writer.close();
    expect(parsed(`${path}.1`).map((r) => r.id)).toEqual(['a', 'b']);
    const now = parsed(path);
    expect(now.map((r) => r.id)).toEqual(['c']);
    expect(now[0]!.prev).toBe(lineHash(lines(`${path}.1`)[1]!));
    expect((await verifyAuditFiles([`${path}.1`, path])).ok).toBe(true);
  });

  it('recreates a deleted log (rm) instead of writing into the unlinked file', async () => {
    const { path, writer } = fresh();
    await writer.write(rec('a'));
    unlinkSync(path);
    await writer.write(rec('b'));
    await writer.close();
    expect(parsed(path).map((r) => r.id)).toEqual(['b']);
    // The deletion shows: the new file follows a line no given file holds.
    const report = await verifyAuditFiles([path]);
    expect(report.notes.join(' ')).toMatch(/follows an earlier file/);
  });

  it('fails the write when the path cannot be opened again (folder gone, or a directory in its place)', async () => {
    const { dir, path, writer } = fresh();
    await writer.write(rec('a'));
    rmSync(dir, { recursive: true, force: true });
    await expect(writer.write(rec('b'))).rejects.toThrow(/ENOENT/);
    mkdirSync(path, { recursive: true }); // the folder is back, but the log path is a directory
    await expect(writer.write(rec('c'))).rejects.toThrow(/EISDIR|not a regular file/);
    await writer.close();
  });

  it('starts a record on a fresh line after a torn tail, chaining onto the last complete line', async () => {
    const { path, writer } = fresh();
    await writer.write(rec('a'));
    await writer.close();
    const complete = lines(path)[0]!;
    appendFileSync(path, '{"ts":"2026-01-01T00:00:00.000Z","id":"torn","tar'); // a crash mid-write
    const again = new AuditWriter(path, () => []);
    await again.write(rec('b'));
    await again.close();
    const all = lines(path);
    expect(all).toHaveLength(3);
    expect(all[1]).toMatch(/"id":"torn","tar$/);
    const b = JSON.parse(all[2]!) as Record<string, unknown>;
    expect(b.id).toBe('b');
    expect(b.prev).toBe(lineHash(complete));
    const report = await verifyAuditFiles([path]);
    expect(report).toMatchObject({ ok: true, tornRecords: 1 });
  });

  it('on a full disk a line is written whole or the write rejects, and nothing is glued together', () => {
    const { path } = fresh();
    const child = fileURLToPath(new URL('../support/audit-child.mjs', import.meta.url));
    // ulimit -f 8: the kernel lets this process's files grow to 8 KiB, then cuts writes short (EFBIG).
    const out = execFileSync('bash', ['-c', 'ulimit -f 8 && exec "$0" "$@"', process.execPath, child, path, '12', '1500'], { encoding: 'utf8' });
    const results = JSON.parse(out) as string[];
    const ok = results.filter((r) => r === 'ok').length;
    expect(ok).toBeGreaterThan(0);
    expect(results.slice(ok).every((r) => r !== 'ok')).toBe(true); // every later write fails, none is silently lost
    expect(results[ok]).toBe('EFBIG');
    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(lines(path)).toHaveLength(ok);
    for (const l of lines(path)) expect(() => JSON.parse(l)).not.toThrow();
  });
});

describe('audit writer: line contents', () => {
  it('records an argument over 8 KB as its length and sha256, keeping the small ones', async () => {
    const { path, writer } = fresh();
    const big = 'A'.repeat(5 * 1024 * 1024);
    await writer.write(rec('a', { args: { vm: 'web-01', content: big } }));
    await writer.close();
    const [line] = lines(path);
    expect(line!.length).toBeLessThan(2048);
    const args = (JSON.parse(line!) as { args: Record<string, unknown> }).args;
    expect(args.vm).toBe('web-01');
    const json = JSON.stringify(big);
    expect(args.content).toEqual({ capped: true, length: Buffer.byteLength(json), sha256: createHash('sha256').update(json).digest('hex') });
  });

  it('caps a value that nests too deep instead of walking it', async () => {
    const { path, writer } = fresh();
    let deep: unknown = 'leaf';
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    await writer.write(rec('a', { phase: 'failed', args: deep }));
    await writer.close();
    expect(parsed(path)[0]!.args).toEqual({ capped: true, too_deep: true });
  });

  it('writes decision on every line: null when the caller gives none', async () => {
    const { path, writer } = fresh();
    await writer.write(rec('a'));
    await writer.write(rec('b', { phase: 'denied', decision: { allowed: false, reason: 'no', rule: 'r' } }));
    await writer.close();
    const [a, b] = parsed(path);
    expect(a).toHaveProperty('decision', null);
    expect(b!.decision).toEqual({ allowed: false, reason: 'no', rule: 'r' });
  });

  it('a known secret shorter than a hash never cuts into the chain field', async () => {
    const dir = tempDir('zr-audit-');
    const path = join(dir, 'audit.jsonl');
    // Every hex pair is a "secret": redaction must not reach `prev`.
    const writer = new AuditWriter(path, () => ['abcd', '0123', '4567', '89ef']);
    for (let i = 0; i < 20; i++) await writer.write(rec(String(i)));
    await writer.close();
    expect((await verifyAuditFiles([path])).ok).toBe(true);
  });
});

describe('audit writer: fsync', () => {
  it('an executing line is fdatasync-ed before the write resolves; a call line is not', () => {
    const { dir } = fresh();
    const child = fileURLToPath(new URL('../support/audit-child.mjs', import.meta.url));
    const trace = join(dir, 'trace.txt');
    // 2 writes: one executing (durable), one executed (not).
    execFileSync('strace', ['-f', '-qq', '-e', 'trace=fdatasync,fsync', '-o', trace, process.execPath, child, join(dir, 'audit.jsonl'), '2', '10'], { encoding: 'utf8' });
    const syncs = readFileSync(trace, 'utf8').split('\n').filter((l) => /fdatasync\(|fsync\(/.test(l) && !/resumed/.test(l));
    expect(syncs).toHaveLength(1);
  });
});

