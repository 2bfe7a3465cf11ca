-- Webhook delivery: one endpoint per organization and mode (managed by operators), and the outbox of
-- deliveries. A delivery row is written in the same transaction as its event, so no committed event is ever
-- missed and no rolled-back one is ever sent. Delivery state lives here, apart from the immutable event.

-- Commit order of events: a transaction that writes an event for an object holds that object's row lock, so
-- a later event of the same object always draws a larger number. Deliveries of one object go out in this order.
ALTER TABLE events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;

CREATE TABLE webhook_endpoints (
  organization_id             uuid NOT NULL REFERENCES organizations (id),
  mode                        text NOT NULL CHECK (mode IN ('test', 'live')),
  url                         text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  enabled                     boolean NOT NULL,
  -- The signing secret has to be usable to sign, so it is stored as is (not hashed); it never leaves the
  -- operator API except in the responses that create or rotate it.
  secret                      text NOT NULL CHECK (secret LIKE 'whsec_%'),
  -- After a rotation the previous secret signs too (a second signature) until it expires, so a receiver
  -- can switch secrets without refusing a single delivery.
  previous_secret             text CHECK (previous_secret LIKE 'whsec_%'),
  previous_secret_expires_at  timestamptz,
  -- Workers serve the endpoints with due work least recently served first, so no endpoint waits behind others.
  served_at                   timestamptz,
  created_at                  timestamptz NOT NULL,
  updated_at                  timestamptz NOT NULL,
  PRIMARY KEY (organization_id, mode),
  CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))
);

-- No foreign key to webhook_endpoints: its check would share-lock the endpoint row from every transaction
-- that writes an event, and many concurrent share locks on one row are slow in PostgreSQL (multixacts).
CREATE TABLE webhook_deliveries (
  id                uuid PRIMARY KEY,
  organization_id   uuid NOT NULL,
  mode              text NOT NULL CHECK (mode IN ('test', 'live')),
  event_id          text NOT NULL REFERENCES events (id),
  event_seq         bigint NOT NULL,
  related_to        uuid,
  -- What queued it: the event itself, a partner's replay, or an operator's bulk replay.
  origin            text NOT NULL CHECK (origin IN ('event', 'replay', 'bulk_replay')),
  state             text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'dead')),
  attempt_count     integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
  next_attempt_at   timestamptz,
  -- Set while a worker holds the delivery; a worker that dies lets it lapse and another one takes over.
  lease_expires_at  timestamptz,
  last_http_status  integer,
  last_error        text,
  delivered_at      timestamptz,
  -- Milliseconds, as list cursors carry them: rows of one transaction share a created_at, and a cursor with
  -- less precision than the column would skip the rest of them.
  created_at        timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CHECK ((state IN ('pending', 'failed')) = (next_attempt_at IS NOT NULL)),
  CHECK ((state = 'delivered') = (delivered_at IS NOT NULL)),
  CHECK (lease_expires_at IS NULL OR state IN ('pending', 'failed'))
);
-- A queue: every delivery is updated twice (claimed, then recorded), so dead row versions pile up quickly.
-- Vacuum and analyze it after 2 % of its rows changed rather than 20 %, so bursts stay cheap to scan.
ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);
-- What workers look for: an endpoint's outstanding deliveries, soonest due first, in event order.
-- "next_attempt_at IS NOT NULL" means outstanding (the CHECK above) and is what the claim's
-- "next_attempt_at <= now()" implies; the per-object probe below says "state IN (...)" instead, so this
-- index can never serve that probe, whatever the statistics (which, taken before a burst, once made the
-- planner scan a whole backlog here for every candidate).
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (organization_id, mode, next_attempt_at, event_seq)
  WHERE next_attempt_at IS NOT NULL;
-- Per-object ordering: is an earlier event of the same object still outstanding? An object belongs to one
-- organization and mode, so to one endpoint: its id alone finds its deliveries.
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (related_to, event_seq)
  WHERE state IN ('pending', 'failed') AND related_to IS NOT NULL;
-- Deliveries held by workers right now (few rows): the per-endpoint concurrency count.
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (organization_id, mode)
  WHERE lease_expires_at IS NOT NULL;
CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (organization_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id, created_at DESC);

-- Wakes idle workers the moment a delivery is queued (LISTEN connect_webhook_deliveries); they poll only as
-- a fallback. PostgreSQL folds identical notifications of one transaction into one.
CREATE FUNCTION notify_webhook_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('connect_webhook_deliveries', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER webhook_deliveries_queued AFTER INSERT ON webhook_deliveries
  FOR EACH ROW EXECUTE FUNCTION notify_webhook_delivery();
