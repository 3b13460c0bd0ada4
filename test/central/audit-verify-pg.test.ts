// `zerto-rewind-mcp audit verify` against central mode's audit table (dist/main.js, needs
// `npm run build`): a real PostgreSQL holding a chain written by the real PgAuditSink; an intact
// chain is OK with its row count, and an edited, a re-hashed or a deleted row is reported as the
// first broken row. The database URL's password never appears in the output.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db } from '../../src/state/pg/db.js';
import { PgAuditSink } from '../../src/state/pg/audit-sink.js';
import { verifyPgAudit } from '../../src/state/pg/audit-verify.js';
import { silentLogger } from '../support/harness.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
/** A startup line and 25 lines of calls. */
const ROWS = 26;
let pg: TestPostgres;
let db: Db;

beforeAll(async () => {
  pg = await startTestPostgres();
  db = new Db(pg.url, silentLogger);
  await db.start();
  const sink = new PgAuditSink(db, () => ['s3cret-value'], { instance: 'test', logger: silentLogger });
  await sink.write({ id: 'start', target: null, tool: 'zerto-rewind-mcp', phase: 'startup', identity: 'zerto-rewind-mcp' });
  for (let i = 0; i < ROWS - 1; i++) {
    await sink.write({ id: `call-${i}`, target: 'lab-vc1', tool: 'create_snapshot', phase: i % 2 ? 'executed' : 'executing', identity: i % 3 ? 'user:alice' : 'user:bob', args: { vm: 'web-01', password: 's3cret-value' } });
  }
  expect(await sink.drain(10_000)).toBe(0);
}, 60_000);

afterAll(async () => {
  await db?.end();
  pg?.destroy();
});

function verify(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [BIN, 'audit', 'verify', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

const seqs = async () => (await db.pool.query<{ seq: string }>('SELECT seq FROM audit_log ORDER BY seq')).rows.map((r) => r.seq);

/** Runs `body` with one row changed by `edit`, then puts the table back as it was. */
async function tampered(edit: (seq: string) => Promise<void>, body: (seq: string) => Promise<void>): Promise<void> {
  const seq = (await seqs())[10]!;
  await db.pool.query('CREATE TABLE IF NOT EXISTS audit_backup AS SELECT * FROM audit_log WITH NO DATA');
  await db.pool.query('TRUNCATE audit_backup');
  await db.pool.query('INSERT INTO audit_backup SELECT * FROM audit_log');
  try {
    await edit(seq);
    await body(seq);
  } finally {
    await db.pool.query('DELETE FROM audit_log');
    await db.pool.query('INSERT INTO audit_log SELECT * FROM audit_backup');
  }
}

describe('audit verify on the PostgreSQL table', () => {
  it('an intact chain is OK with its row count, by --database-url and by DATABASE_URL; exit 0', () => {
    const host = new URL(pg.url).host;
    for (const run of [verify(['--database-url', pg.url]), verify([], { DATABASE_URL: pg.url })]) {
      expect(run.code, run.err).toBe(0);
      expect(run.out.trim()).toBe(`OK: audit_log in ${host}/postgres, ${ROWS} rows, chain intact`);
    }
  });

  it('pages through the table without losing the chain at page boundaries', async () => {
    for (const page of [1, 7, ROWS, ROWS + 1]) expect(await verifyPgAudit(db.pool, { pageSize: page })).toEqual({ ok: true, lines: ROWS });
  });

  it('an edited row is the first broken row; exit 1', async () => {
    await tampered(
      (seq) => db.pool.query("UPDATE audit_log SET line = replace(line, 'user:', 'user:mallory-') WHERE seq = $1", [seq]).then(() => undefined),
      async (seq) => {
        const run = verify(['--database-url', pg.url]);
        expect(run.code).toBe(1);
        expect(run.out).toContain(`BROKEN: audit_log in ${new URL(pg.url).host}/postgres row seq ${seq}: hash does not match the line (the line was edited)`);
        expect(run.out).toContain('rows before it verified: 10');
        expect(await verifyPgAudit(db.pool, { pageSize: 4 })).toMatchObject({ ok: false, brokenAt: seq });
      },
    );
    expect(verify(['--database-url', pg.url]).code).toBe(0);
  });

  it('an edited row whose stored hash and column were recomputed breaks at the row after it', async () => {
    let next = '';
    await tampered(
      async (seq) => {
        const { rows } = await db.query<{ line: string }>('SELECT line FROM audit_log WHERE seq = $1', [seq]);
        const forged = rows[0]!.line.replace('"create_snapshot"', '"delete_vm"');
        expect(forged).not.toBe(rows[0]!.line);
        await db.pool.query("UPDATE audit_log SET line = $2, hash = $3, tool = 'delete_vm' WHERE seq = $1", [seq, forged, createHash('sha256').update(forged).digest('hex')]);
        next = (await seqs())[11]!;
      },
      async () => {
        const run = verify([], { DATABASE_URL: pg.url });
        expect(run.code).toBe(1);
        expect(run.out).toContain(`row seq ${next}: prev does not match the previous line`);
      },
    );
  });

  it('a column edited behind the chain (identity, tool, phase, target, ts, proposal_id) is the first broken row; exit 1', async () => {
    const edits: Array<[string, string]> = [
      ['identity', "identity = 'user:mallory'"],
      ['tool', "tool = 'power_on_vm'"],
      ['phase', "phase = 'call'"],
      ['ts', "ts = ts - interval '3 days'"],
      ['proposal_id', "proposal_id = 'forged'"],
      ['target', "target = 'lab-vc2'"],
    ];
    for (const [column, set] of edits) {
      await tampered(
        (seq) => db.pool.query(`UPDATE audit_log SET ${set} WHERE seq = $1`, [seq]).then(() => undefined),
        async (seq) => {
          const run = verify(['--database-url', pg.url]);
          expect(run.code, column).toBe(1);
          expect(run.out).toContain(`row seq ${seq}: column ${column} does not match the line`);
        },
      );
    }
  });

  it('an emptied table, or one without any startup line, is not intact; exit 1', async () => {
    await tampered(
      async () => {
        // A whole new chain, intact, but no instance ever joined it: its start was removed.
        await db.pool.query('DELETE FROM audit_log');
        const sink = new PgAuditSink(db, () => [], { instance: 'test', logger: silentLogger });
        for (let i = 0; i < 3; i++) await sink.write({ id: `x-${i}`, target: null, tool: 'list_vms', phase: 'call', identity: 'user:alice' });
        expect(await sink.drain(10_000)).toBe(0);
      },
      async () => {
        const run = verify(['--database-url', pg.url]);
        expect(run.code).toBe(1);
        expect(run.out).toContain('no instance\'s startup line is in the table');
      },
    );
    await tampered(
      () => db.pool.query('DELETE FROM audit_log').then(() => undefined),
      async () => {
        const run = verify(['--database-url', pg.url]);
        expect(run.code).toBe(1);
        expect(run.out).toContain('the table has no rows');
      },
    );
  });

  it('a deleted row breaks the chain at the row after it', async () => {
    await tampered(
      (seq) => db.pool.query('DELETE FROM audit_log WHERE seq = $1', [seq]).then(() => undefined),
      async () => {
        const after = (await seqs())[10]!;
        const run = verify(['--database-url', pg.url]);
        expect(run.code).toBe(1);
        expect(run.out).toContain(`row seq ${after}: prev does not match the previous line (a line was removed or reordered)`);
      },
    );
  });

  it('an unreachable database exits 2, says nothing was verified, and never prints the password', () => {
    const run = verify(['--database-url', 'postgres://auditor:hunter2-secret@127.0.0.1:1/audit']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('cannot read the audit table in 127.0.0.1:1/audit');
    expect(run.err).toContain('Nothing was verified');
    expect(run.out + run.err).not.toContain('hunter2');
  });

  it('misuse exits 2 with the usage: files and a database at once, a flag without its URL, nothing to verify', () => {
    for (const args of [['--database-url', pg.url, 'audit.jsonl'], ['--database-url'], []]) {
      const run = verify(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.err).toContain('--database-url URL');
    }
  });

  it('the chain holds no secret from the arguments', async () => {
    const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE line LIKE '%s3cret-value%'");
    expect(Number(rows[0]!.n)).toBe(0);
  });
});

describe('audit verify with anchors outside the table', () => {
  it('a tail cut after an instance recorded the table\'s last row in its JSONL shutdown line is found; exit 1', async () => {
    const last = (await db.pool.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1')).rows[0]!;
    const dir = mkdtempSync(join(tmpdir(), 'zr-anchor-'));
    const file = join(dir, 'audit.jsonl');
    writeFileSync(file, `${JSON.stringify({ phase: 'startup', id: 's' })}\n${JSON.stringify({ phase: 'shutdown', id: 'x', detail: { reason: 'shutdown', audit_table: { seq: String(last.seq), hash: last.hash } } })}\n`);
    const intact = verify(['--database-url', pg.url, '--anchors', file]);
    expect(intact.code, intact.err).toBe(0);
    expect(intact.out).toContain('1 anchor(s) found');
    await tampered(
      () => db.pool.query('DELETE FROM audit_log WHERE seq > (SELECT max(seq) - 2 FROM audit_log)').then(() => undefined),
      async () => {
        // Without the anchor the shorter chain is intact; with it, the cut is found.
        expect(verify(['--database-url', pg.url]).code).toBe(0);
        const cut = verify(['--database-url', pg.url, '--anchors', file]);
        expect(cut.code).toBe(1);
        expect(cut.out).toContain('the tail was cut or rewritten');
      },
    );
  });
});
