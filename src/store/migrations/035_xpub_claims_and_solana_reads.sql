-- Which xpub of each key family this database hands addresses out from (docs/live-evm.md, "One xpub, one
-- database"). A database that has not claimed the configured xpub hands out none of its addresses: another
-- database (a copy, a second deployment, a newer one this backup was restored from) may already have given them
-- to customers. The operator claims it, saying where this database starts (or that the xpub is new), and
-- derivation_counters.next_index moves up to that start, never down.
CREATE TABLE xpub_claims (
  family       text NOT NULL,
  -- SHA-256 of the account's public key and chain code (hex): names the xpub without storing it.
  fingerprint  text NOT NULL,
  -- first_use: the operator said no database used it before; declared: the operator named the start index;
  -- adopted: the database handed out this xpub's addresses before claims existed (its index 0 derives from it).
  how          text NOT NULL CHECK (how IN ('first_use', 'declared', 'adopted')),
  start_index  bigint NOT NULL CHECK (start_index >= 0),
  claimed_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (family, fingerprint)
);

-- The slot of each Solana cursor's signature: a node that has not reached it is not believed (minContextSlot),
-- and a cursor never moves to an older slot. Null for cursors written before; filled at their next move.
ALTER TABLE solana_signature_cursors ADD COLUMN last_slot bigint;

-- When the Solana watcher last read each live address, and last saw it active (created, or a new signature):
-- each tick reads the least recently read first, within its call budget, so none starves; a standalone
-- address idle for long is read less often (docs/live-solana.md, "What the watcher costs").
CREATE TABLE solana_address_reads (
  address_id  uuid PRIMARY KEY REFERENCES deposit_addresses (id),
  read_at     timestamptz NOT NULL,
  active_at   timestamptz NOT NULL
);
