-- A refund quote made for the overpayment (`portion: "excess"`) says so, so that its execution checks, under the
-- intent's lock, that the overpayment is still unrefunded (docs/refunds.md): two excess quotes made side by side
-- must not both be paid from the order's own money.
ALTER TABLE payout_quotes ADD COLUMN refund_portion text CHECK (refund_portion IS NULL OR (refund_portion = 'excess' AND kind = 'refund'));
