-- Catalog additions and the FLR session registry, shared by every instance.

-- Tools an agent added to the mutating catalog (built-in and config.json entries are not stored:
-- every instance has them from its own code and configuration).
CREATE TABLE catalog_added (
  tool       text PRIMARY KEY,
  vm_arg     text NOT NULL,
  platform   text NOT NULL CHECK (platform IN ('linux','windows','any')),
  note       text NOT NULL,
  added_at   timestamptz NOT NULL DEFAULT now()
);

-- FLR sessions opened and not yet closed, so a mount left by a dead instance can be found.
CREATE TABLE flr_sessions (
  site          text NOT NULL,
  session_id    text NOT NULL,
  entry         jsonb NOT NULL,
  owner_instance text NOT NULL,
  PRIMARY KEY (site, session_id)
);

-- Server processes that own FLR sessions, with a heartbeat: an owner whose heartbeat stopped is
-- gone (on any host), so its sessions are orphans. A pid alone says nothing across hosts.
CREATE TABLE server_instances (
  instance   text PRIMARY KEY,
  host       text NOT NULL,
  pid        integer NOT NULL,
  seen_at    timestamptz NOT NULL
);
