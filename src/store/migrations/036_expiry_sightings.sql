-- What the expiring-payout engine has seen of each transaction (issue 34): RPC endpoints spread calls over
-- backends that lag each other, so one "not found" past the deadline is not proof that a transaction never landed.
--
-- `absent_seen_at`/`absent_seen_point`: the first attempt that saw it past its deadline (at that final point) and
-- landed nowhere, from an answer proving the node's height. `expired` is recorded only by a later attempt, at least
-- the configured delay after it, that sees the same. `landed_seen_at`: the first attempt any node showed it landed
-- (in any block, final or not); from then on it is never recorded expired, whatever a later node says.
ALTER TABLE expiring_payout_txs
  ADD COLUMN landed_seen_at timestamptz,
  ADD COLUMN absent_seen_at timestamptz,
  ADD COLUMN absent_seen_point numeric(20, 0),
  ADD CONSTRAINT expiring_payout_txs_absence_check CHECK ((absent_seen_at IS NULL) = (absent_seen_point IS NULL)),
  ADD CONSTRAINT expiring_payout_txs_landed_never_expired CHECK (status <> 'expired' OR landed_seen_at IS NULL);
