-- Dashboard sessions live in signed cookies (any instance accepts one without shared state); signing out writes
-- the session's id here, so the cookie is refused everywhere from then on, even if a copy of it survives. A row
-- is kept until the session would have expired anyway.
CREATE TABLE dashboard_sign_outs (
  session_id  text PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX dashboard_sign_outs_expiry_idx ON dashboard_sign_outs (expires_at);
