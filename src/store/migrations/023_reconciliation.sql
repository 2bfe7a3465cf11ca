-- The chain reconciled against the ledger (docs/reconciliation.md): the latest result per live network and asset,
-- replaced by each run, whichever process made it, so every instance's operator view and gauges show the same.
CREATE TABLE reconciliation_results (
  network           text NOT NULL,
  asset             text NOT NULL,
  status            text NOT NULL CHECK (status IN ('ok', 'surplus', 'shortfall', 'unavailable')),
  -- What the ledger owes the owners (available + reserved, live) less what broadcast payouts may already have
  -- taken from the hot wallet; known even when the chain could not be read.
  ledger_total      numeric NOT NULL,
  -- Null when the chain could not be read (status unavailable): an unread chain is never a drift.
  onchain_total     numeric,
  drift             numeric,
  -- The figures behind the totals and the addresses whose balance is not what was credited to them (JSON,
  -- decimal strings): small, read whole by the operator view.
  details           jsonb NOT NULL,
  -- Why the chain could not be read (status unavailable), the endpoint left out.
  error             text,
  -- When this row was written, and when the chain was last read (kept across unavailable runs).
  checked_at        timestamptz NOT NULL,
  reconciled_at     timestamptz,
  PRIMARY KEY (network, asset),
  CHECK ((status = 'unavailable') = (onchain_total IS NULL)),
  CHECK ((onchain_total IS NULL) = (drift IS NULL))
);
