// The role setup docs/central-mode.md recommends: an owner role applies the migrations, the server runs as
// a role that may only INSERT and SELECT audit_log. An upgraded database where the server's role
// had been granted everything (table-wide and on one column) loses UPDATE, DELETE and TRUNCATE on
// audit_log with migration 003; the server's role then starts without any right to change the
// schema, appends to the chain, and is refused every rewrite, column by column.
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Db } from '../../src/state/pg/db.js';
import { PgAuditSink } from '../../src/state/pg/audit-sink.js';
import { auditRewriteRights } from '../../src/state/pg/audit-privileges.js';
import { verifyPgAudit } from '../../src/state/pg/audit-verify.js';
import { silentLogger } from '../support/harness.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';

const MIGRATIONS = join(process.cwd(), 'src/state/pg/migrations');
let pgc: TestPostgres;
let admin: pg.Pool;
const as = (role: string) => pgc.url.replace('postgres://postgres@', `postgres://${role}@`);

beforeAll(async () => {
  pgc = await startTestPostgres();
  admin = new pg.Pool({ connectionString: pgc.url, max: 1 });
  await admin.query('CREATE ROLE zr_owner LOGIN');
  await admin.query('CREATE ROLE zr_server LOGIN');
  await admin.query('GRANT CREATE ON SCHEMA public TO zr_owner');
  // A database from before migration 003, created by the owner role...
  const owner = new pg.Client({ connectionString: as('zr_owner') });
  await owner.connect();
  await owner.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const f of ['001_central_state.sql', '002_catalog_flr.sql']) {
    await owner.query(readFileSync(join(MIGRATIONS, f), 'utf8'));
    await owner.query('INSERT INTO schema_migrations (name) VALUES ($1)', [f]);
  }
  // ...where the server's role was granted everything, and UPDATE on one column besides.
  await owner.query('GRANT ALL ON ALL TABLES IN SCHEMA public TO zr_server');
  await owner.query('GRANT UPDATE (identity) ON audit_log TO zr_server');
  await owner.query('GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO zr_server');
  await owner.end();
}, 60_000);

afterAll(async () => {
  await admin?.end();
  pgc?.destroy();
});

it('after migration 003 (applied by the owner), the server\'s role can only append to audit_log and read it', async () => {
  const ownerDb = new Db(as('zr_owner'), silentLogger);
  await ownerDb.start();
  expect(await auditRewriteRights(ownerDb)).toContain('OWNER');
  await ownerDb.end();
  // The tables 003 created are the owner's: the grants of docs/central-mode.md give the server what it uses.
  await admin.query('SET ROLE zr_owner');
  await admin.query('GRANT SELECT, INSERT, UPDATE, DELETE ON open_changes TO zr_server');
  await admin.query('RESET ROLE');

  const db = new Db(as('zr_server'), silentLogger);
  await db.start();
  try {
    expect(db.up).toBe(true);
    expect(await auditRewriteRights(db)).toEqual([]);
    const sink = new PgAuditSink(db, () => [], { instance: 'roles', logger: silentLogger });
    await sink.write({ id: 'start', target: null, tool: 'zerto-rewind-mcp', phase: 'startup', identity: 'zerto-rewind-mcp' });
    await sink.write({ id: 'c1', target: 'lab-vc1', tool: 'power_on_vm', phase: 'executing', identity: 'user:alice' });
    await sink.write({ id: 'c1', target: 'lab-vc1', tool: 'power_on_vm', phase: 'executed', identity: 'user:alice' });
    expect(await sink.drain(10_000)).toBe(0);
    const server = new pg.Client({ connectionString: as('zr_server') });
    await server.connect();
    try {
      const refused = async (sql: string) => (await server.query(sql).then(() => 'allowed', (e: { code?: string }) => e.code));
      const columns = (await server.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_name = 'audit_log'")).rows.map((r) => r.column_name);
      expect(columns.length).toBeGreaterThanOrEqual(11);
      for (const c of columns) {
        expect(await refused(`UPDATE audit_log SET ${c} = ${c}`), c).toBe('42501');
      }
      expect(await refused('DELETE FROM audit_log')).toBe('42501');
      expect(await refused('TRUNCATE audit_log')).toBe('42501');
      expect(await refused('SELECT count(*) FROM audit_log')).toBe('allowed');
    } finally {
      await server.end();
    }
    expect(await verifyPgAudit(admin)).toMatchObject({ ok: true, lines: 3 });
  } finally {
    await db.end();
  }
}, 60_000);
