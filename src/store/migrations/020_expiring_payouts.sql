-- Live payouts on chains whose signed transaction carries its own deadline (Tron's expiration, Solana's
-- lastValidBlockHeight): docs/money-out.md, "Chains without nonces: expiring transactions".
--
-- Every transaction signed for a payout, recorded under the payout's lease before it is broadcast, and never
-- overwritten: `raw` is what is broadcast (again) while it is open. `signed`: recorded, no node known to have
-- taken it; `broadcast`: a node took it; `expired`: proven never to land (the chain's final point passed its
-- deadline and no node knows it). A payout has at most one open (signed or broadcast) transaction, and a new one
-- is recorded only once every earlier one is expired: at most one of them can ever land.
CREATE TABLE expiring_payout_txs (
  id                 bigserial PRIMARY KEY,
  payout_id          uuid NOT NULL REFERENCES payouts (id),
  network            text NOT NULL,
  -- 1 for the first transaction of the payout, then 2, 3… for each one signed after the one before expired.
  signing            integer NOT NULL CHECK (signing >= 1),
  tx_id              text NOT NULL UNIQUE,
  raw                text NOT NULL,
  deadline_kind      text NOT NULL CHECK (deadline_kind IN ('expiration_ms', 'last_valid_height')),
  deadline           numeric(20, 0) NOT NULL CHECK (deadline > 0),
  status             text NOT NULL DEFAULT 'signed' CHECK (status IN ('signed', 'broadcast', 'expired')),
  first_broadcast_at timestamptz,
  last_broadcast_at  timestamptz,
  expired_at         timestamptz CHECK ((status = 'expired') = (expired_at IS NOT NULL)),
  created_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (payout_id, signing)
);
-- Two open transactions of one payout are impossible: a second signer's insert fails here.
CREATE UNIQUE INDEX expiring_payout_txs_one_open_idx ON expiring_payout_txs (payout_id) WHERE status IN ('signed', 'broadcast');
