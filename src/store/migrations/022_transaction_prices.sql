-- Statements partners can book (docs/reports.md). A ledger row keeps the fiat price it was valued at when it
-- happened, so a statement never revalues history at today's price: `unit_prices` is
-- {"at": <the price snapshot's time>, "fiat": {"USD": "3150.25", "EUR": "2898.23", …}}, the price of one unit of
-- the row's asset in each fiat of the catalog that could be priced, as exact decimal strings. Null when no fresh
-- price existed (the statement leaves the row's fiat values empty, fail-closed) and on rows written before 022.
ALTER TABLE transactions ADD COLUMN unit_prices jsonb;

-- A statement reads a tenant's ledger transfers in (created_at, id) order, a page at a time.
CREATE INDEX ledger_transfers_statement_idx ON ledger_transfers (organization_id, mode, created_at, id);
-- …and joins each movement's payout (or refund) by the ledger row it carries.
CREATE INDEX payouts_transaction_idx ON payouts (transaction_id);
