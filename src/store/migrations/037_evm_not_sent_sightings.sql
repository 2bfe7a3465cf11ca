-- What the EVM payout engine has seen of a nonce that no transaction of the payout paid at (issue 34): RPC endpoints
-- spread calls over backends that lag each other, so one set of answers proving "not sent" (a revert, a
-- cancellation, another transaction at the nonce, each at its confirmations) is believed only when a later attempt,
-- at least CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS on, proves the same by the same transaction.
--
-- `not_sent_seen_at`/`not_sent_seen_by`: the first attempt that saw the proof, and the proof it saw
-- (`<proof>:<transaction hash>`); a different proof seen later starts the wait again.
ALTER TABLE evm_payout_txs
  ADD COLUMN not_sent_seen_at timestamptz,
  ADD COLUMN not_sent_seen_by text,
  ADD CONSTRAINT evm_payout_txs_not_sent_sighting_check CHECK ((not_sent_seen_at IS NULL) = (not_sent_seen_by IS NULL));
