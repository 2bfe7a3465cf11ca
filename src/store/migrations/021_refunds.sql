-- Refunds of payment intents (docs/refunds.md). A refund is a payout of kind 'refund': it runs through the same
-- quote → execute → leased engine, and carries the terms only a refund has, on the quote and on the payout:
--   refund_amount          what is refunded against the intent, in the refunded asset: counted against what the
--                          intent received on that asset and network;
--   refund_amount_counted  the same in the intent's currency (what `amount_refunded` on the intent sums);
--   refund_network_fee     who pays the network fee: 'deducted' (the payer receives refund_amount − fee, the
--                          balance pays refund_amount = user_sends) or 'on_top' (the payer receives refund_amount =
--                          amount, the balance pays amount + fee);
--   refund_reason          the partner's note, at most 500 characters.
-- Columns rather than a side table: every read of a payout row (the engine's claims return rows with RETURNING)
-- then carries its refund terms with no join.

ALTER TABLE payout_quotes
  ADD COLUMN kind                   text NOT NULL DEFAULT 'payout' CHECK (kind IN ('payout', 'refund')),
  ADD COLUMN payment_intent_id      uuid REFERENCES payment_intents (id),
  ADD COLUMN refund_amount          numeric CHECK (refund_amount > 0),
  ADD COLUMN refund_amount_counted  numeric CHECK (refund_amount_counted >= 0),
  ADD COLUMN refund_network_fee     text CHECK (refund_network_fee IN ('deducted', 'on_top')),
  ADD COLUMN refund_reason          text CHECK (length(refund_reason) <= 500),
  ADD CONSTRAINT payout_quotes_refund_terms_check CHECK (
    CASE kind
      WHEN 'payout' THEN payment_intent_id IS NULL AND refund_amount IS NULL AND refund_amount_counted IS NULL
        AND refund_network_fee IS NULL AND refund_reason IS NULL
      ELSE payment_intent_id IS NOT NULL AND refund_amount_counted IS NOT NULL AND refund_network_fee IS NOT NULL
        AND refund_amount IS NOT NULL AND refund_amount = CASE refund_network_fee WHEN 'deducted' THEN user_sends WHEN 'on_top' THEN amount END
    END);

ALTER TABLE payouts
  ADD COLUMN kind                   text NOT NULL DEFAULT 'payout' CHECK (kind IN ('payout', 'refund')),
  ADD COLUMN payment_intent_id      uuid REFERENCES payment_intents (id),
  ADD COLUMN refund_amount          numeric CHECK (refund_amount > 0),
  ADD COLUMN refund_amount_counted  numeric CHECK (refund_amount_counted >= 0),
  ADD COLUMN refund_network_fee     text CHECK (refund_network_fee IN ('deducted', 'on_top')),
  ADD COLUMN refund_reason          text CHECK (length(refund_reason) <= 500),
  ADD CONSTRAINT payouts_refund_terms_check CHECK (
    CASE kind
      WHEN 'payout' THEN payment_intent_id IS NULL AND refund_amount IS NULL AND refund_amount_counted IS NULL
        AND refund_network_fee IS NULL AND refund_reason IS NULL
      ELSE payment_intent_id IS NOT NULL AND refund_amount_counted IS NOT NULL AND refund_network_fee IS NOT NULL
        AND refund_amount IS NOT NULL AND refund_amount = CASE refund_network_fee WHEN 'deducted' THEN user_sends WHEN 'on_top' THEN amount END
    END);

-- An intent's refunds (its envelope, and the sum an execution checks under the intent's lock), oldest first.
CREATE INDEX payouts_refunds_by_intent_idx ON payouts (payment_intent_id, created_at, id) WHERE kind = 'refund';
-- GET /refunds, newest first.
CREATE INDEX payouts_refunds_list_idx ON payouts (organization_id, mode, created_at DESC, id DESC) WHERE kind = 'refund';

-- A refund's ledger row. Its payment_intent_id stays null (non-null only for credits, so summing credits by intent
-- never counts a refund); the refund and its intent are named by columns of their own.
ALTER TABLE transactions DROP CONSTRAINT transactions_type_check;
ALTER TABLE transactions
  ADD CONSTRAINT transactions_type_check CHECK (type IN ('deposit', 'payout', 'refund', 'transfer', 'conversion', 'ramp')),
  ADD COLUMN refund_id                 uuid,
  ADD COLUMN refund_payment_intent_id  uuid,
  ADD CONSTRAINT transactions_refund_check CHECK ((type = 'refund') = (refund_id IS NOT NULL AND refund_payment_intent_id IS NOT NULL));
