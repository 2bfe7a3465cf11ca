-- The live path on EVM networks: deposit addresses derived from the operator's xpub, chain watchers that
-- credit confirmed deposits and reverse deposits whose blocks a deep reorganization removed.

-- The next BIP-32 index of each key family ('evm': one xpub for every EVM network). One counter per family,
-- not per network: every address is then unique across EVM chains, so a deposit sent on the wrong chain
-- reaches nobody else's address (the operator can still recover it with the private key).
CREATE TABLE derivation_counters (
  family      text PRIMARY KEY,
  next_index  bigint NOT NULL CHECK (next_index >= 0)
);

-- Which index each address came from: what the operator needs to spend from it with the offline key.
CREATE TABLE derived_addresses (
  family            text NOT NULL,
  derivation_index  bigint NOT NULL CHECK (derivation_index >= 0),
  address           text NOT NULL,
  network           text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (family, derivation_index)
);

-- A watcher's position per network: the next block to read. Watchers advance it only while holding its row
-- lock and only from the value they read before their RPC calls, so two watchers never commit the same blocks.
CREATE TABLE chain_cursors (
  network     text PRIMARY KEY,
  next_block  bigint NOT NULL CHECK (next_block >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Hashes of the blocks read (a window below the cursor): a stored hash the chain no longer has is a reorg.
CREATE TABLE chain_blocks (
  network  text NOT NULL,
  number   bigint NOT NULL,
  hash     text NOT NULL,
  PRIMARY KEY (network, number)
);

-- Every transfer to a live address seen on chain, from first sight (pending) to credited, or reversed when a
-- reorganization deeper than the confirmations removed it after crediting. Its transactions row is the
-- partner-visible one (pending, then confirmed; failed when dropped or reversed).
CREATE TABLE chain_deposits (
  network          text NOT NULL,
  tx_hash          text NOT NULL,
  -- The log's index for a token Transfer; 0 for a native transfer (a transaction to an EOA emits no log).
  output_index     integer NOT NULL CHECK (output_index >= 0),
  block_number     bigint NOT NULL,
  block_hash       text NOT NULL,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  address_id       uuid NOT NULL REFERENCES deposit_addresses (id),
  asset            text NOT NULL,
  amount           numeric NOT NULL CHECK (amount > 0),
  from_address     text NOT NULL,
  transaction_id   uuid NOT NULL REFERENCES transactions (id),
  status           text NOT NULL CHECK (status IN ('pending', 'credited', 'reversed')),
  PRIMARY KEY (network, tx_hash, output_index)
);
CREATE INDEX chain_deposits_block_idx ON chain_deposits (network, block_number) WHERE status <> 'reversed';

-- Watchers look their transfers' recipients up by network and address, case-insensitively (EIP-55 case is
-- only a checksum).
CREATE INDEX deposit_addresses_live_idx ON deposit_addresses (network, lower(address)) WHERE mode = 'live';

-- Live EVM payouts from the hot wallet. Nonces are handed out here, under the row lock of the wallet's counter,
-- so concurrent payouts (from any instance) never share one. A nonce whose transaction the node refused is
-- released (payout_id null) and is the next one handed out, so none is skipped either.
CREATE TABLE evm_nonces (
  network       text NOT NULL,
  from_address  text NOT NULL,
  next_nonce    bigint NOT NULL CHECK (next_nonce >= 0),
  PRIMARY KEY (network, from_address)
);

CREATE TABLE evm_payout_txs (
  id            bigserial PRIMARY KEY,
  network       text NOT NULL,
  from_address  text NOT NULL,
  nonce         bigint NOT NULL CHECK (nonce >= 0),
  payout_id     uuid REFERENCES payouts (id),
  -- The signed transaction as broadcast (sent again as it is when the first answer was lost).
  raw           text,
  tx_hash       text,
  status        text NOT NULL CHECK (status IN ('allocated', 'signed', 'broadcast', 'released')),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (network, from_address, nonce),
  CHECK ((status = 'released') = (payout_id IS NULL))
);
CREATE UNIQUE INDEX evm_payout_txs_payout_idx ON evm_payout_txs (payout_id) WHERE payout_id IS NOT NULL;
