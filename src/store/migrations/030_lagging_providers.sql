-- RPC endpoints are crowds of backends that lag each other (docs/architecture.md, "What the service assumes of
-- its RPC endpoints"). A watcher that finds another hash at a height it linked believes the chain changed only
-- when it sees that again after a delay, once credited deposits would be reversed: when it first saw it.
ALTER TABLE chain_cursors ADD COLUMN fork_seen_at timestamptz;

-- A deposit reversed by a reorganization that the new chain mines again is credited again: the round numbers
-- its credits, each under a ledger cause of its own.
ALTER TABLE chain_deposits ADD COLUMN round integer NOT NULL DEFAULT 1 CHECK (round >= 1);
