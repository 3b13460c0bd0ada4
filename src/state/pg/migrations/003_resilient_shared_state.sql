-- Central mode through database faults, on one clock, with an append-only audit table.

-- The database's clock in epoch milliseconds: every shared deadline (proposal expiry, the rate
-- window) is judged on it, whatever each host's clock says.
CREATE FUNCTION zr_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
$$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

-- Which instance claimed an executing proposal, and when: a proposal whose claimer stopped its
-- heartbeat is closed as failed/interrupted by a live instance.
ALTER TABLE proposals ADD COLUMN claimed_by text, ADD COLUMN claimed_at bigint;
CREATE INDEX proposals_executing ON proposals (claimed_at) WHERE state = 'executing';

-- Changes whose `executing` line has no outcome line yet, with the instance running them.
CREATE TABLE open_changes (
  audit_id    text PRIMARY KEY,
  instance    text NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now(),
  tool        text NOT NULL,
  target      text,
  identity    text NOT NULL,
  proposal_id text
);

-- Every instance heartbeats here (not only FLR session owners).
CREATE INDEX server_instances_seen ON server_instances (seen_at);

-- The chain append in one statement: the lock is taken, the last hash read and the lines
-- inserted inside PostgreSQL, so no lock is held across client round trips. `entries` is a JSON
-- array of {ts, id, target, tool, phase, identity, proposal_id, body, mode}; `body` is the
-- canonical line without `prev` (a JSON object's text), and the line is that text with
-- `"prev":<hash>` appended, exactly as the file writer would write it. Modes:
--   always: append (a retried batch skips lines already there: same id, phase and ts);
--   once:   an outcome line (executed/failed), skipped when the change already has one;
--   close:  an outcome that closes a change: only when it has an `executing` line and no outcome.
CREATE FUNCTION zr_audit_append(entries jsonb, writer text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  e jsonb;
  prev text;
  line text;
  h text;
  n integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(71018);
  SELECT hash INTO prev FROM audit_log ORDER BY seq DESC LIMIT 1;
  FOR e IN SELECT value FROM jsonb_array_elements(entries) LOOP
    IF EXISTS (SELECT 1 FROM audit_log WHERE id = e->>'id' AND phase = e->>'phase' AND ts = (e->>'ts')::timestamptz) THEN
      CONTINUE;
    END IF;
    IF e->>'mode' IN ('once', 'close') AND EXISTS (SELECT 1 FROM audit_log WHERE id = e->>'id' AND phase IN ('executed', 'failed')) THEN
      DELETE FROM open_changes WHERE audit_id = e->>'id';
      CONTINUE;
    END IF;
    IF e->>'mode' = 'close' AND NOT EXISTS (SELECT 1 FROM audit_log WHERE id = e->>'id' AND phase = 'executing') THEN
      CONTINUE;
    END IF;
    line := left(e->>'body', -1) || ',"prev":' || COALESCE('"' || prev || '"', 'null') || '}';
    h := encode(sha256(convert_to(line, 'UTF8')), 'hex');
    INSERT INTO audit_log (ts, id, target, tool, phase, identity, proposal_id, line, prev_hash, hash)
      VALUES ((e->>'ts')::timestamptz, e->>'id', e->>'target', e->>'tool', e->>'phase', e->>'identity', e->>'proposal_id', line, prev, h);
    IF e->>'phase' = 'executing' THEN
      INSERT INTO open_changes (audit_id, instance, tool, target, identity, proposal_id)
        VALUES (e->>'id', writer, e->>'tool', e->>'target', e->>'identity', e->>'proposal_id') ON CONFLICT DO NOTHING;
    ELSIF e->>'phase' IN ('executed', 'failed') THEN
      DELETE FROM open_changes WHERE audit_id = e->>'id';
    END IF;
    prev := h;
    n := n + 1;
  END LOOP;
  RETURN n;
END $$;

-- The shared rate budget in one statement, on the database's clock: the sliding minute of `k`
-- (a JSON [target, category]), under the same per-key lock as before. Returns 0 when the call
-- fits (and records it), else the milliseconds until a slot frees up.
CREATE FUNCTION zr_rate_take(k text, lim integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  now_ms bigint := zr_now_ms();
  cutoff bigint := now_ms - 60000;
  used integer;
  oldest bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(k));
  DELETE FROM rate_events WHERE key = k AND at <= cutoff;
  SELECT count(*), min(at) INTO used, oldest FROM rate_events WHERE key = k;
  IF used >= lim THEN
    RETURN GREATEST(1, oldest - cutoff);
  END IF;
  INSERT INTO rate_events (key, at) VALUES (k, now_ms);
  RETURN 0;
END $$;

-- audit_log is append-only for everyone but its owner: UPDATE, DELETE and TRUNCATE are revoked
-- from PUBLIC and from every other role that holds them. (A table's owner keeps every right; run
-- the server as a role that does not own it, see the README on database roles.)
REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM PUBLIC;
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT DISTINCT a.grantee::regrole::text AS role
      FROM pg_class c, aclexplode(c.relacl) a
     WHERE c.oid = 'audit_log'::regclass AND a.grantee <> 0 AND a.grantee <> c.relowner
       AND a.privilege_type IN ('UPDATE', 'DELETE', 'TRUNCATE')
  LOOP
    EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM %s', r.role);
  END LOOP;
  -- Column grants too: UPDATE (identity) would rewrite one column of every row.
  FOR r IN
    SELECT DISTINCT a.grantee::regrole::text AS role
      FROM pg_attribute t, aclexplode(t.attacl) a, pg_class c
     WHERE t.attrelid = 'audit_log'::regclass AND c.oid = t.attrelid AND t.attacl IS NOT NULL
       AND a.grantee <> c.relowner AND a.privilege_type = 'UPDATE'
  LOOP
    EXECUTE format('REVOKE UPDATE (%s) ON audit_log FROM %s',
      (SELECT string_agg(quote_ident(attname), ', ') FROM pg_attribute WHERE attrelid = 'audit_log'::regclass AND attnum > 0 AND NOT attisdropped),
      CASE WHEN r.role = '-' THEN 'PUBLIC' ELSE r.role END);
  END LOOP;
END $$;
