-- The double-entry ledger. Every movement is a transfer whose postings sum to zero per asset, between accounts
-- that each belong to an owner (the organization, or one of its profiles) or to the service's side of the
-- tenant (the outside world: the chains; fees). An owner holds `available` and `reserved` funds per asset and
-- network. A transfer carries its cause (e.g. deposit:<network>:<tx hash>:<output index>), unique per tenant,
-- so one cause can never post twice.

-- Accounts gain a kind and a shard. An organization's treasury `available` account is split into shards that
-- concurrent credits pick at random, so deposits to one treasury do not queue on one row lock; its balance is
-- the sum of its shards. The `world` account is the counter-side of deposits and payouts: it keeps no running
-- balance (its column stays 0; its balance is what its postings sum to), so it is never a locked hot row.
ALTER TABLE ledger_accounts ADD COLUMN kind text NOT NULL DEFAULT 'available'
  CHECK (kind IN ('available', 'reserved', 'world', 'fees'));
ALTER TABLE ledger_accounts ADD COLUMN shard smallint NOT NULL DEFAULT 0 CHECK (shard >= 0);
ALTER TABLE ledger_accounts ALTER COLUMN kind DROP DEFAULT;
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_organization_id_mode_profile_id_asset_netwo_key;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_identity_key
  UNIQUE NULLS NOT DISTINCT (organization_id, mode, profile_id, asset, network, kind, shard);
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_owner_check
  CHECK (kind IN ('available', 'reserved') OR profile_id IS NULL);
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_world_check CHECK (kind <> 'world' OR balance = 0);
-- `balance >= 0` (from 002) still holds for every account that keeps one.

CREATE TABLE ledger_transfers (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  cause            text NOT NULL,
  -- The partner-visible row this movement belongs to (a deposit, a payout), when there is one.
  transaction_id   uuid REFERENCES transactions (id),
  created_at       timestamptz NOT NULL,
  UNIQUE (organization_id, mode, cause)
);
CREATE INDEX ledger_transfers_transaction_idx ON ledger_transfers (transaction_id);

CREATE TABLE ledger_postings (
  id           bigserial PRIMARY KEY,
  transfer_id  uuid NOT NULL REFERENCES ledger_transfers (id),
  account_id   uuid NOT NULL REFERENCES ledger_accounts (id),
  asset        text NOT NULL,
  -- Signed: credits positive, debits negative.
  amount       numeric NOT NULL CHECK (amount <> 0)
);
CREATE INDEX ledger_postings_account_idx ON ledger_postings (account_id);
CREATE INDEX ledger_postings_transfer_idx ON ledger_postings (transfer_id);

-- Carry the previous version's ledger over: existing accounts are `available`, shard 0; each one-sided entry
-- (a deposit credit) becomes a transfer from the tenant's world account to the owner's account.
UPDATE ledger_accounts SET kind = 'available';
INSERT INTO ledger_accounts (id, organization_id, mode, profile_id, asset, network, balance, kind, shard)
  SELECT DISTINCT ON (a.organization_id, a.mode, a.asset, a.network)
         gen_random_uuid(), a.organization_id, a.mode, NULL::uuid, a.asset, a.network, 0, 'world', 0
  FROM ledger_accounts a;
INSERT INTO ledger_transfers (id, organization_id, mode, cause, transaction_id, created_at)
  SELECT gen_random_uuid(), t.organization_id, t.mode,
         'deposit:' || t.network || ':' || t.tx_hash || ':' || t.output_index, t.id, t.created_at
  FROM transactions t WHERE EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id);
INSERT INTO ledger_postings (transfer_id, account_id, asset, amount)
  SELECT tr.id, e.account_id, a.asset, e.amount
  FROM ledger_entries e
  JOIN ledger_accounts a ON a.id = e.account_id
  JOIN ledger_transfers tr ON tr.transaction_id = e.transaction_id
  UNION ALL
  SELECT tr.id, w.id, a.asset, -e.amount
  FROM ledger_entries e
  JOIN ledger_accounts a ON a.id = e.account_id
  JOIN ledger_transfers tr ON tr.transaction_id = e.transaction_id
  JOIN ledger_accounts w ON w.organization_id = a.organization_id AND w.mode = a.mode AND w.asset = a.asset
                        AND w.network = a.network AND w.kind = 'world';
DROP TABLE ledger_entries;
