-- A live payout stuck unmined is sent again with the same nonce and a higher fee, never above what the quote
-- charged for the network fee (fee_cap_wei, fixed when it was first signed). Every hash it was sent under is
-- kept: any one of them may be the one mined.
ALTER TABLE evm_payout_txs
  ADD COLUMN fee_cap_wei        numeric(78, 0) CHECK (fee_cap_wei >= 0),
  ADD COLUMN broadcast_at       timestamptz,
  ADD COLUMN replaced_tx_hashes text[] NOT NULL DEFAULT '{}';
-- Transactions broadcast before this migration are due for a rebroadcast as if sent when last updated.
UPDATE evm_payout_txs SET broadcast_at = updated_at WHERE status = 'broadcast';
