-- Money out: payout quotes and payouts. A quote fixes what will be sent (asset, network, destination, amounts,
-- fee) for 60 seconds; executing it reserves the payer's funds (available → reserved) in the same transaction
-- that records the payout, its `payout` transaction row and its event.

CREATE TABLE payout_quotes (
  id                 text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  mode               text NOT NULL CHECK (mode IN ('test', 'live')),
  profile_id         uuid REFERENCES profiles (id),
  external_ref       text,
  destination        text NOT NULL,
  asset              text NOT NULL,
  network            text NOT NULL,
  -- What the recipient gets; the network fee (in the asset) comes on top: user_sends = amount + fee.
  amount             numeric NOT NULL CHECK (amount > 0),
  fee                numeric NOT NULL CHECK (fee >= 0),
  user_sends         numeric NOT NULL CHECK (user_sends = amount + fee),
  fee_total_usd      numeric NOT NULL CHECK (fee_total_usd >= 0),
  estimated_seconds  integer NOT NULL CHECK (estimated_seconds > 0),
  -- Live quotes are single-use: set when executed.
  used_at            timestamptz,
  expires_at         timestamptz NOT NULL,
  created_at         timestamptz NOT NULL,
  CHECK ((profile_id IS NULL) = (external_ref IS NULL))
);
CREATE INDEX payout_quotes_tenant_idx ON payout_quotes (organization_id, mode, created_at DESC);

CREATE TABLE payouts (
  id                     uuid PRIMARY KEY,
  organization_id        uuid NOT NULL REFERENCES organizations (id),
  mode                   text NOT NULL CHECK (mode IN ('test', 'live')),
  quote_id               text NOT NULL REFERENCES payout_quotes (id),
  profile_id             uuid REFERENCES profiles (id),
  external_ref           text,
  status                 text NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  destination            text NOT NULL,
  asset                  text NOT NULL,
  network                text NOT NULL,
  amount                 numeric NOT NULL CHECK (amount > 0),
  fee                    numeric NOT NULL CHECK (fee >= 0),
  user_sends             numeric NOT NULL CHECK (user_sends = amount + fee),
  fee_total_usd          numeric NOT NULL,
  estimated_seconds      integer NOT NULL,
  estimated_delivery_at  timestamptz NOT NULL,
  transaction_id         uuid NOT NULL REFERENCES transactions (id),
  tx_hash                text,
  failure_reason         text,
  completed_at           timestamptz,
  failed_at              timestamptz,
  created_at             timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL,
  -- One payout per quote: what makes sandbox re-executions land on the same payout.
  UNIQUE (organization_id, mode, quote_id),
  CHECK ((profile_id IS NULL) = (external_ref IS NULL)),
  CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
  CHECK ((status = 'failed') = (failed_at IS NOT NULL))
);
CREATE INDEX payouts_list_idx ON payouts (organization_id, mode, created_at DESC, id DESC);
CREATE INDEX payouts_profile_idx ON payouts (profile_id, created_at DESC, id DESC);
CREATE INDEX payouts_open_idx ON payouts (mode, estimated_delivery_at) WHERE status IN ('pending', 'processing');

-- A payout's transaction row carries the network fee it paid (in the asset); deposits have none.
ALTER TABLE transactions ADD COLUMN fee numeric CHECK (fee >= 0);
-- What a deposit to an intent address counted toward the intent, in the intent's currency, fixed at credit time
-- (a deposit in another accepted asset counts at its priced value); null when it was not counted.
ALTER TABLE transactions ADD COLUMN counted_amount numeric CHECK (counted_amount >= 0);
-- The deposits of one standalone address (the sandbox simulator numbers its fake hashes by their count).
CREATE INDEX transactions_address_idx ON transactions (address_id) WHERE address_id IS NOT NULL;
