-- The latest sweep plan of each network and asset of the treasury policy (issue 36, docs/treasury.md): what the
-- periodic job (or `treasury plan`) found on chain, summed. Read by `treasury status`, the dashboard, the metrics and
-- /readyz without reading the chain again. One row per pair, replaced by each plan.
CREATE TABLE treasury_status (
  network     text NOT NULL,
  asset       text NOT NULL,
  -- Why the latest attempt made no plan (the chain could not be read, no hot wallet, no fresh price); null: it did.
  error       text,
  -- The summary as `GET /admin/v1/treasury/status` shows it: decimal strings, never floats. Kept from the last
  -- plan that was made while `error` says why the latest was not.
  summary     jsonb,
  float_level text CHECK (float_level IN ('low', 'ok', 'high')),
  checked_at  timestamptz NOT NULL,
  planned_at  timestamptz,
  PRIMARY KEY (network, asset)
);
