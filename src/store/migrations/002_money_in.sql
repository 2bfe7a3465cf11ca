-- Money in: end-user profiles, payment intents, deposit addresses, the ledger and the event log.
-- Amounts are NUMERIC (exact decimals in the asset's unit); JavaScript never holds them as floats.

-- Whitelabel end users, created lazily on the first call that names their external_ref.
CREATE TABLE profiles (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  external_ref     text NOT NULL CHECK (length(external_ref) BETWEEN 1 AND 255),
  created_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (organization_id, mode, external_ref)
);

CREATE TABLE payment_intents (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  profile_id       uuid REFERENCES profiles (id),
  external_ref     text,
  -- Public hosted-page identifier: unique across the whole service.
  ref_code         text NOT NULL UNIQUE CHECK (length(ref_code) = 5),
  amount           numeric NOT NULL CHECK (amount > 0),
  currency         text NOT NULL,
  currencies       text[] NOT NULL,
  description      text,
  metadata         jsonb,
  -- Stored status; 'pending' past expires_at reads as expired until the sweeper persists it.
  status           text NOT NULL CHECK (status IN ('pending', 'completed', 'expired', 'failed')),
  amount_received  numeric NOT NULL DEFAULT 0 CHECK (amount_received >= 0),
  deposit_count    integer NOT NULL DEFAULT 0,
  -- The last credit, as the envelope's `deposit` object.
  last_deposit     jsonb,
  expires_at       timestamptz NOT NULL,
  completed_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  CHECK ((profile_id IS NULL) = (external_ref IS NULL)),
  CHECK ((status = 'completed') = (completed_at IS NOT NULL))
);
CREATE INDEX payment_intents_list_idx ON payment_intents (organization_id, mode, created_at DESC, id DESC);
CREATE INDEX payment_intents_profile_idx ON payment_intents (profile_id, created_at DESC, id DESC);
CREATE INDEX payment_intents_expiry_idx ON payment_intents (expires_at) WHERE status = 'pending';

-- Intent addresses (payment_intent_id set) and standalone addresses (null). Owner: the organization, or the
-- profile when profile_id is set.
CREATE TABLE deposit_addresses (
  id                 uuid PRIMARY KEY,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  mode               text NOT NULL CHECK (mode IN ('test', 'live')),
  profile_id         uuid REFERENCES profiles (id),
  external_ref       text,
  payment_intent_id  uuid REFERENCES payment_intents (id),
  -- Order of the address within its intent (currency priority, then network priority).
  position           integer NOT NULL DEFAULT 0,
  asset              text NOT NULL,
  network            text NOT NULL,
  address            text NOT NULL,
  memo               text,
  label              text,
  created_at         timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (mode, network, asset, address),
  CHECK ((profile_id IS NULL) = (external_ref IS NULL))
);
CREATE INDEX deposit_addresses_intent_idx ON deposit_addresses (payment_intent_id, position);
CREATE INDEX deposit_addresses_list_idx ON deposit_addresses (organization_id, mode, created_at DESC, id DESC)
  WHERE payment_intent_id IS NULL;

-- One balance per owner, asset and network; `balance` always equals the sum of the account's entries.
CREATE TABLE ledger_accounts (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  profile_id       uuid REFERENCES profiles (id),
  asset            text NOT NULL,
  network          text NOT NULL,
  balance          numeric NOT NULL DEFAULT 0 CHECK (balance >= 0),
  created_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE NULLS NOT DISTINCT (organization_id, mode, profile_id, asset, network)
);

-- The partner-visible ledger rows.
CREATE TABLE transactions (
  id                 uuid PRIMARY KEY,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  mode               text NOT NULL CHECK (mode IN ('test', 'live')),
  profile_id         uuid REFERENCES profiles (id),
  external_ref       text,
  type               text NOT NULL CHECK (type IN ('deposit', 'payout', 'transfer', 'conversion', 'ramp')),
  status             text NOT NULL CHECK (status IN ('pending', 'confirmed', 'failed')),
  asset              text NOT NULL,
  network            text,
  amount             numeric NOT NULL CHECK (amount > 0),
  from_address       text,
  to_address         text,
  tx_hash            text,
  -- Position of the credited output (UTXO index or log index) within the on-chain transaction.
  output_index       integer,
  address_id         uuid REFERENCES deposit_addresses (id),
  payment_intent_id  uuid REFERENCES payment_intents (id),
  completed_at       timestamptz,
  created_at         timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
-- A deposit's on-chain identity: the same output can never be credited twice.
CREATE UNIQUE INDEX transactions_deposit_identity_idx ON transactions (network, tx_hash, output_index) WHERE type = 'deposit';
CREATE INDEX transactions_list_idx ON transactions (organization_id, mode, created_at DESC, id DESC);
CREATE INDEX transactions_profile_idx ON transactions (profile_id, created_at DESC, id DESC);

CREATE TABLE ledger_entries (
  id              bigserial PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES ledger_accounts (id),
  transaction_id  uuid NOT NULL REFERENCES transactions (id),
  -- Signed: credits positive, debits negative.
  amount          numeric NOT NULL CHECK (amount <> 0),
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id);

-- The immutable event log: written in the transaction of the change it describes.
CREATE TABLE events (
  id               text PRIMARY KEY CHECK (id ~ '^evt_[0-9A-HJKMNP-TV-Z]{26}$'),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  type             text NOT NULL,
  api_version      text NOT NULL,
  data             jsonb NOT NULL,
  related_to       uuid,
  related_to_kind  text,
  created_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  CHECK ((related_to IS NULL) = (related_to_kind IS NULL))
);
CREATE INDEX events_list_idx ON events (organization_id, mode, created_at DESC, id DESC);
CREATE INDEX events_related_idx ON events (related_to, created_at DESC, id DESC);
