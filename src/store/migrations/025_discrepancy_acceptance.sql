-- A partner's decision to keep an intent's over- or underpayment as it is (docs/money-in.md, "Discrepancies"): what
-- was accepted (type and amount, so a later credit that changes the discrepancy reopens it), when, and the note.
ALTER TABLE payment_intents ADD COLUMN discrepancy_acceptance jsonb;
