-- Hardening: ref_codes that can be reused once their intent has ended, and deposits that always carry their
-- on-chain identity.

-- A ref_code is reserved for one intent until `held_until` (its expires_at plus a retention window). After
-- that a new intent may take the code over, so the 31^5 codes are shared across time instead of running out.
-- The code on payment_intents stays as it was drawn (history); this table says which intent a code names now.
CREATE TABLE ref_codes (
  code               text PRIMARY KEY CHECK (length(code) = 5),
  payment_intent_id  uuid NOT NULL REFERENCES payment_intents (id),
  held_until         timestamptz NOT NULL
);
INSERT INTO ref_codes (code, payment_intent_id, held_until)
  SELECT ref_code, id, expires_at + interval '30 days' FROM payment_intents;
ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_ref_code_key;
CREATE INDEX payment_intents_ref_code_idx ON payment_intents (ref_code);

-- The deposit-credit use case refuses a deposit without its identity; the schema refuses it too.
ALTER TABLE transactions ADD CONSTRAINT transactions_deposit_identity_check
  CHECK (type <> 'deposit' OR (network IS NOT NULL AND tx_hash IS NOT NULL AND output_index IS NOT NULL AND output_index >= 0));
