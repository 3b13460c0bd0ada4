-- Change records: one row per change that got past its decision, so any instance answers
-- get_change and cancel_change for it, and a change whose instance died is found and closed.
-- The row's `record` is the whole record (src/core/change-record.ts); the columns are what the
-- queries select on. The instance following a change heartbeats in server_instances.
CREATE TABLE change_records (
  id             text PRIMARY KEY,
  state          text NOT NULL CHECK (state IN ('running','executed','failed','cancelled','interrupted')),
  owner_instance text NOT NULL,
  record         jsonb NOT NULL,
  started_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX change_records_running ON change_records (owner_instance) WHERE state = 'running';
