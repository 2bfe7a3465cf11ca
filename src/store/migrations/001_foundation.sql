-- Foundation: tenants, their API keys, idempotency records, shared secrets and rate-limit counters.
-- Timestamps are kept to the millisecond so that a keyset cursor written from a JS Date matches exactly.

CREATE TABLE organizations (
  id          uuid PRIMARY KEY,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  status      text NOT NULL CHECK (status IN ('active', 'pending_verification', 'suspended')),
  settings    jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX organizations_created_idx ON organizations (created_at DESC, id DESC);

CREATE TABLE api_keys (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  -- SHA-256 of the whole key: keys carry 190+ bits of randomness, so a fast hash cannot be brute-forced.
  key_hash         text NOT NULL UNIQUE,
  -- The key's first characters, for operators to recognise a key without seeing it.
  key_prefix       text NOT NULL,
  scopes           text[] NOT NULL,
  rate_limit_rps   integer NOT NULL CHECK (rate_limit_rps BETWEEN 1 AND 100000),
  expires_at       timestamptz,
  revoked_at       timestamptz,
  -- Set when the key was rotated away: the key that replaced it.
  replaced_by      uuid REFERENCES api_keys (id),
  created_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX api_keys_org_created_idx ON api_keys (organization_id, created_at DESC, id DESC);

-- One row per (organization, mode, Idempotency-Key). The row is inserted in the transaction of the operation
-- it protects, so the unique key decides between concurrent requests and a rolled-back operation leaves none.
CREATE TABLE idempotency_records (
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  idempotency_key  text NOT NULL,
  request_hash     text NOT NULL,
  -- Filled in by the same transaction once the operation has answered; never visible empty to another one.
  response_status  integer,
  response_body    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (organization_id, mode, idempotency_key)
);
CREATE INDEX idempotency_records_expires_idx ON idempotency_records (expires_at);

-- Secrets every instance must agree on (cursor signing); created once, by whichever instance is first.
CREATE TABLE instance_secrets (
  name   text PRIMARY KEY,
  value  text NOT NULL
);

-- Per-key request counters (rate-limiter-flexible's layout). UNLOGGED: counters are worth nothing after a
-- crash, and skipping the WAL keeps the per-request upsert cheap.
CREATE UNLOGGED TABLE rate_limit_counters (
  key     varchar(255) PRIMARY KEY,
  points  integer NOT NULL DEFAULT 0,
  expire  bigint
);
