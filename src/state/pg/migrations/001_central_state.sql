-- Central mode's shared state. Applied at startup by store/pg/migrate.ts, once per version,
-- under an advisory lock so that instances starting together do not race.

CREATE TABLE proposals (
  id            uuid PRIMARY KEY,
  -- sha256 of the token: the token itself is a bearer secret and never stored.
  token_hash    text NOT NULL UNIQUE,
  tool          text NOT NULL,
  target_name   text NOT NULL,
  target_host   text NOT NULL,
  summary       text NOT NULL,
  affected      jsonb NOT NULL,
  checkpoint_vpgs jsonb NOT NULL,
  requester     text NOT NULL,
  requires_web_approval boolean NOT NULL,
  approval      text NOT NULL DEFAULT 'single',
  audit_id      text NOT NULL,
  payload       jsonb NOT NULL,
  state         text NOT NULL CHECK (state IN ('pending','executing','executed','failed','cancelled','expired')),
  created_at    bigint NOT NULL,
  expires_at    bigint NOT NULL,
  finished_at   bigint,
  decided_by    text,
  outcome       jsonb
);
CREATE INDEX proposals_pending ON proposals (expires_at) WHERE state = 'pending';
CREATE INDEX proposals_finished ON proposals (finished_at);

-- One row per call that used a slot: the sliding minute is a count over (key, at).
CREATE TABLE rate_events (
  key  text NOT NULL,
  at   bigint NOT NULL
);
CREATE INDEX rate_events_key_at ON rate_events (key, at);

CREATE TABLE audit_log (
  seq        bigserial PRIMARY KEY,
  ts         timestamptz NOT NULL,
  id         text NOT NULL,
  target     text,
  tool       text NOT NULL,
  phase      text NOT NULL,
  identity   text NOT NULL,
  proposal_id text,
  -- The canonical JSONL line (what the file writer would append, without the newline).
  line       text NOT NULL,
  prev_hash  text,
  hash       text NOT NULL UNIQUE
);
CREATE INDEX audit_log_id ON audit_log (id);
