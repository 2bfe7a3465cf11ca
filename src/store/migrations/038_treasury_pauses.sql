-- Networks whose sweeping the operator paused (issue 36, docs/treasury.md): a row is a pause; resuming deletes it.
-- Kept in the database, not in the policy file, so that every process sees a pause at once and it survives restarts.
CREATE TABLE treasury_pauses (
  network    text PRIMARY KEY,
  reason     text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  paused_at  timestamptz NOT NULL
);
