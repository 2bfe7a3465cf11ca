-- Live Solana deposits (docs/live-solana.md). ed25519 keys cannot be derived from a public key, so the operator
-- derives owner keys offline and imports their public halves into a pool; each deposit address takes one,
-- under the row lock of that owner (SKIP LOCKED: concurrent intents take different ones), and none is ever
-- handed out twice.
CREATE TABLE solana_deposit_owners (
  network          text NOT NULL,
  -- base58 public key: the address partners are given; SPL tokens land in its associated token accounts.
  owner            text NOT NULL,
  -- Where the operator derived it from (e.g. m/44'/501'/7'/0'): what recovering its funds needs.
  derivation_path  text NOT NULL,
  imported_at      timestamptz NOT NULL DEFAULT now(),
  allocated_at     timestamptz,
  PRIMARY KEY (network, owner)
);
CREATE INDEX solana_deposit_owners_free_idx ON solana_deposit_owners (network, imported_at, owner) WHERE allocated_at IS NULL;

-- The newest finalized signature a watcher has read of each watched account (an owner or one of its token
-- accounts): the `until` of its next getSignaturesForAddress. Moved only in the transaction that records what
-- was read before it, and only from the value read before the RPC calls.
CREATE TABLE solana_signature_cursors (
  network         text NOT NULL,
  account         text NOT NULL,
  last_signature  text NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network, account)
);

-- Solana deposits are recorded in chain_deposits as well: tx_hash is the signature, output_index the
-- instruction's position in the transaction's execution order (top-level and inner instructions interleaved),
-- block_number the slot and block_hash empty (only finalized slots are read, which are never rolled back).
