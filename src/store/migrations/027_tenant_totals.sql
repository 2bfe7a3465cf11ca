-- The tenant-wide balance at a cost that does not grow with the tenant's profiles (issue 24). Summing every
-- account of a tenant on each read grew with its profiles; a single running total per tenant would be a hot
-- row that every deposit of the tenant waits on, and that a payout (which locks accounts in the ledger's lock
-- order) could deadlock against. Instead every change is appended, by the database, in the transaction that
-- makes it: a trigger adds a row to tenant_total_deltas for each change of an available or reserved balance
-- and for each new profile. Appending locks nothing another transaction waits on. tenant_totals holds what
-- the deltas folded so far added up to; a read is the tenant's tenant_totals rows plus its deltas not folded
-- yet, in one statement (one MVCC snapshot, so a fold committing meanwhile is seen whole or not at all).
-- A periodic fold (src/store/tenant-totals.ts) moves the deltas into tenant_totals in one transaction, which
-- keeps their number to what the tenant writes between two folds, whatever its number of profiles.
--
-- A line of either table is one asset on one network of one tenant, or, with asset and network null, the
-- tenant's profile count.

CREATE TABLE tenant_totals (
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  asset            text,
  network          text,
  -- No CHECK (available >= 0): a fold inserts each sum of deltas, which may be negative, before it finds the row
  -- it adds to, and PostgreSQL checks the row it was asked to insert. `ledger verify` compares these with the accounts.
  available        numeric NOT NULL,
  reserved         numeric NOT NULL,
  profiles         bigint NOT NULL,
  CONSTRAINT tenant_totals_key UNIQUE NULLS NOT DISTINCT (organization_id, mode, asset, network),
  CHECK ((asset IS NULL) = (network IS NULL)),
  CHECK (asset IS NOT NULL OR (available = 0 AND reserved = 0))
);

-- No key and no foreign key: each would cost every deposit a lookup, and the rows only live until the next fold.
CREATE TABLE tenant_total_deltas (
  organization_id  uuid NOT NULL,
  mode             text NOT NULL,
  asset            text,
  network          text,
  available        numeric NOT NULL,
  reserved         numeric NOT NULL,
  profiles         integer NOT NULL
);
CREATE INDEX tenant_total_deltas_tenant_idx ON tenant_total_deltas (organization_id, mode);

CREATE FUNCTION tenant_total_account_delta() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  change numeric := NEW.balance - CASE WHEN TG_OP = 'UPDATE' THEN OLD.balance ELSE 0 END;
BEGIN
  INSERT INTO tenant_total_deltas (organization_id, mode, asset, network, available, reserved, profiles)
  VALUES (NEW.organization_id, NEW.mode, NEW.asset, NEW.network,
          CASE WHEN NEW.kind = 'available' THEN change ELSE 0 END, CASE WHEN NEW.kind = 'reserved' THEN change ELSE 0 END, 0);
  RETURN NULL;
END
$$;
-- An account's kind and owner never change, and accounts are never deleted: inserts and balance changes are all there is.
CREATE TRIGGER ledger_accounts_opened_total AFTER INSERT ON ledger_accounts
  FOR EACH ROW WHEN (NEW.kind IN ('available', 'reserved') AND NEW.balance <> 0) EXECUTE FUNCTION tenant_total_account_delta();
CREATE TRIGGER ledger_accounts_moved_total AFTER UPDATE OF balance ON ledger_accounts
  FOR EACH ROW WHEN (NEW.kind IN ('available', 'reserved') AND NEW.balance <> OLD.balance) EXECUTE FUNCTION tenant_total_account_delta();

CREATE FUNCTION tenant_total_profile_delta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tenant_total_deltas (organization_id, mode, asset, network, available, reserved, profiles)
  VALUES (NEW.organization_id, NEW.mode, NULL, NULL, 0, 0, 1);
  RETURN NULL;
END
$$;
-- Profiles are never deleted.
CREATE TRIGGER profiles_counted_total AFTER INSERT ON profiles FOR EACH ROW EXECUTE FUNCTION tenant_total_profile_delta();

-- The totals of what exists already. The triggers above were created first: creating one locks its table
-- against writes until this transaction commits, so no change can fall between this sum and the triggers.
INSERT INTO tenant_totals (organization_id, mode, asset, network, available, reserved, profiles)
  SELECT organization_id, mode, asset, network,
         coalesce(sum(balance) FILTER (WHERE kind = 'available'), 0), coalesce(sum(balance) FILTER (WHERE kind = 'reserved'), 0), 0
  FROM ledger_accounts WHERE kind IN ('available', 'reserved')
  GROUP BY organization_id, mode, asset, network
  UNION ALL
  SELECT organization_id, mode, NULL, NULL, 0, 0, count(*) FROM profiles GROUP BY organization_id, mode;
