-- The payer gives the refund address: a single-use link on the hosted page (docs/refunds.md, "The refund address the payer gives").
--
-- The link's token is stored only as its SHA-256 (like API keys): the database alone cannot open the page.
-- `networks` is fixed when the request is made: the asset/network pairs the intent's credited deposits came on,
-- the only ones the payer may choose. `expired` is not stored: an open request past `expires_at` reads as
-- expired, so no sweep is needed and a clock that moved is enough.
CREATE TABLE refund_address_requests (
  id                 uuid PRIMARY KEY,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  mode               text NOT NULL CHECK (mode IN ('test', 'live')),
  payment_intent_id  uuid NOT NULL REFERENCES payment_intents (id),
  token_hash         text NOT NULL UNIQUE,
  networks           jsonb NOT NULL CHECK (jsonb_typeof(networks) = 'array' AND jsonb_array_length(networks) > 0),
  status             text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'submitted', 'cancelled')),
  asset              text,
  network            text,
  address            text,
  submitted_at       timestamptz,
  expires_at         timestamptz NOT NULL,
  created_at         timestamptz NOT NULL,
  -- A submitted request carries the payer's whole choice; no other request carries any of it.
  CHECK (CASE WHEN status = 'submitted' THEN asset IS NOT NULL AND network IS NOT NULL AND address IS NOT NULL AND submitted_at IS NOT NULL
              ELSE asset IS NULL AND network IS NULL AND address IS NULL AND submitted_at IS NULL END)
);
CREATE INDEX refund_address_requests_intent_idx ON refund_address_requests (payment_intent_id, created_at DESC);
