-- The live payout engine (docs/money-out.md, "Live payouts: states and leases").
--
-- A live payout that is not settled is worked on only by the process holding its lease: `lease_token`, valid
-- until `next_attempt_at`. A sweep claims due rows (next_attempt_at passed) with FOR UPDATE SKIP LOCKED, gives
-- them a new token and pushes next_attempt_at out by the lease; every outcome is written only under that token.
-- When the work is done, next_attempt_at is when the payout is due again: rows worked go to the back of the line,
-- so a sweep rotates through every due row.
ALTER TABLE payouts
  ADD COLUMN lease_token      uuid,
  ADD COLUMN next_attempt_at  timestamptz,
  ADD COLUMN attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- Why the last attempt left the payout open (a node that did not answer, a refusal being cancelled): for the operator.
  ADD COLUMN last_error       text,
  -- Asked by the operator: cancel the payout at its nonce (a zero-value self-transfer), failing it once that is mined.
  ADD COLUMN cancel_requested_at timestamptz;
UPDATE payouts SET next_attempt_at = now() WHERE mode = 'live' AND status IN ('pending', 'processing');
CREATE INDEX payouts_live_due_idx ON payouts (network, next_attempt_at) WHERE mode = 'live' AND status IN ('pending', 'processing');

-- Every transaction signed at a nonce of the hot wallet, by what it is for: the payout's transfer (and its
-- replacements at a higher fee), a cancellation (a zero-value transfer to the wallet itself, which fails the payout
-- once mined), or a filler (the same, at a nonce no payout holds, so later nonces are not stuck behind a gap).
-- Whatever of them is mined decides the outcome; none is ever overwritten. `raw` is null only for hashes recorded
-- before this table (their bytes were not kept).
CREATE TABLE evm_signed_txs (
  tx_hash     text PRIMARY KEY,
  nonce_id    bigint NOT NULL REFERENCES evm_payout_txs (id),
  purpose     text NOT NULL CHECK (purpose IN ('payout', 'cancel', 'filler')),
  raw         text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX evm_signed_txs_nonce_idx ON evm_signed_txs (nonce_id);
INSERT INTO evm_signed_txs (tx_hash, nonce_id, purpose, raw)
  SELECT tx_hash, id, 'payout', raw FROM evm_payout_txs WHERE tx_hash IS NOT NULL;
INSERT INTO evm_signed_txs (tx_hash, nonce_id, purpose, raw)
  SELECT h, id, 'payout', NULL FROM evm_payout_txs, unnest(replaced_tx_hashes) AS h ON CONFLICT DO NOTHING;
ALTER TABLE evm_payout_txs DROP COLUMN replaced_tx_hashes;

-- A nonce row: `allocated` (held by a payout, nothing signed), `signed`/`broadcast` (its current transaction,
-- raw/tx_hash, is one of evm_signed_txs), `released` (nothing was signed: the next payout takes it), `filling`
-- (a filler is signed at it), `filled` (the chain has used it). A nonce with anything signed is never released.
ALTER TABLE evm_payout_txs DROP CONSTRAINT evm_payout_txs_status_check;
ALTER TABLE evm_payout_txs DROP CONSTRAINT evm_payout_txs_check;
ALTER TABLE evm_payout_txs
  ADD CONSTRAINT evm_payout_txs_status_check CHECK (status IN ('allocated', 'signed', 'broadcast', 'released', 'filling', 'filled')),
  ADD CONSTRAINT evm_payout_txs_owner_check CHECK ((status IN ('released', 'filling', 'filled')) = (payout_id IS NULL)),
  -- What the current transaction is for; the payout's own until a cancellation is signed.
  ADD COLUMN current_purpose text NOT NULL DEFAULT 'payout' CHECK (current_purpose IN ('payout', 'cancel', 'filler')),
  ADD COLUMN released_at timestamptz;
UPDATE evm_payout_txs SET released_at = updated_at WHERE status = 'released';
CREATE INDEX evm_payout_txs_released_idx ON evm_payout_txs (network, from_address, nonce) WHERE status IN ('released', 'filling');
