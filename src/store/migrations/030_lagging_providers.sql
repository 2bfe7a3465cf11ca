-- RPC endpoints are crowds of backends that lag each other (docs/architecture.md, "What the service assumes of
-- its RPC endpoints"). A watcher that finds another hash at a height it linked believes the chain changed only
-- when it sees that again after a delay, once credited deposits would be reversed: when it first saw it.
ALTER TABLE chain_cursors ADD COLUMN fork_seen_at timestamptz;

-- A deposit reversed by a reorganization that the new chain mines again is credited again: the round numbers
-- its credits, each under a ledger cause of its own.
ALTER TABLE chain_deposits ADD COLUMN round integer NOT NULL DEFAULT 1 CHECK (round >= 1);

-- What a reorganization took from money an owner holds in reserve for a payout or refund that may still fail:
-- the owner's debt (balance at most 0), which a release repays before anything becomes available again.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('available', 'reserved', 'world', 'fees', 'debt'));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_owner_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_owner_check CHECK (kind IN ('available', 'reserved', 'debt') OR profile_id IS NULL);
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_balance_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_balance_check CHECK (CASE WHEN kind = 'debt' THEN balance <= 0 ELSE balance >= 0 END);
