-- The dashboard's sign-in without per-instance memory: the session and the pending login travel
-- sealed in the browser's cookies; this table holds only what a cookie cannot say about itself,
-- that it was used up (a login cookie by its callback, a session by its sign-out), until the
-- cookie would have expired anyway. Keys are digests or random ids: no row opens anything.
CREATE TABLE IF NOT EXISTS dashboard_revocations (
  kind text NOT NULL CHECK (kind IN ('login', 'session')),
  key text NOT NULL,
  until timestamptz NOT NULL,
  PRIMARY KEY (kind, key)
);
CREATE INDEX IF NOT EXISTS dashboard_revocations_until ON dashboard_revocations (until);
