-- A deposit whose credit failed (a constraint refused it, an intent in a state nobody foresaw) is quarantined:
-- it stays pending and is tried again on its own schedule, credited in a transaction of its own, so it holds
-- back neither the watcher's cursor nor the other deposits of its network. The operator lists them.
ALTER TABLE chain_deposits
  ADD COLUMN credit_attempts  integer NOT NULL DEFAULT 0 CHECK (credit_attempts >= 0),
  -- The last failure's message, never with an RPC URL.
  ADD COLUMN last_error       text,
  -- The first failure; kept once the deposit is credited, as its history.
  ADD COLUMN quarantined_at   timestamptz,
  ADD COLUMN next_attempt_at  timestamptz,
  ADD CONSTRAINT chain_deposits_quarantine_check CHECK ((credit_attempts = 0) = (quarantined_at IS NULL));

-- The operator's list (newest first) and the metrics gauge read only the deposits quarantined now: a handful.
CREATE INDEX chain_deposits_quarantined_idx ON chain_deposits (quarantined_at, transaction_id)
  WHERE status = 'pending' AND quarantined_at IS NOT NULL;
