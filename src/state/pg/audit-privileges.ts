// Whether this server's database user could rewrite the shared audit table. The recommended setup
// (docs/central-mode.md, Database roles) runs the server as a role with only INSERT and SELECT on
// audit_log, so that a compromised server cannot edit or erase the record of what it did;
// migration 003 revokes the rest from every role but the owner. An owner keeps every right, so a server connected as the
// table's owner is told so, loudly, at each start.
import type { Logger } from '../../core/logger.js';
import type { Db } from './db.js';

/** The rewriting rights this connection's user holds on audit_log (table or any column). */
export async function auditRewriteRights(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ owner: boolean; upd: boolean; del: boolean; trunc: boolean; col: boolean }>(
    `SELECT pg_get_userbyid(c.relowner) = current_user AS owner,
            has_table_privilege('audit_log', 'UPDATE') AS upd, has_table_privilege('audit_log', 'DELETE') AS del,
            has_table_privilege('audit_log', 'TRUNCATE') AS trunc, has_any_column_privilege('audit_log', 'UPDATE') AS col
       FROM pg_class c WHERE c.oid = 'audit_log'::regclass`);
  const r = rows[0];
  if (!r) return [];
  return [...(r.owner ? ['OWNER'] : []), ...(r.upd || r.col ? ['UPDATE'] : []), ...(r.del ? ['DELETE'] : []), ...(r.trunc ? ['TRUNCATE'] : [])];
}

export async function warnIfAuditRewritable(db: Db, logger: Logger): Promise<void> {
  const rights = await auditRewriteRights(db);
  if (rights.length) {
    logger.warn({ rights }, 'the server\'s database user may rewrite audit_log; run the server as a role with only INSERT and SELECT on it (docs/central-mode.md: Database roles)');
  }
}
