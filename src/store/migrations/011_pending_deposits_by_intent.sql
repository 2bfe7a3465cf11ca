-- The hosted payment page lists an intent's deposits seen on chain but not yet confirmed, on every poll of its
-- status (every open page, every 2 s). Pending rows are few and short-lived, so this index stays tiny; the
-- price is that a deposit's or payout's status change is no longer a HOT update, which is rare beside the polls.
CREATE INDEX transactions_pending_intent_idx ON transactions (payment_intent_id) WHERE type = 'deposit' AND status = 'pending';
