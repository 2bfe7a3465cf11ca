-- Instances cache who a key is (key, organization status and settings) so that an authenticated request
-- needs no database round trip for it. Every change that can alter that answer (a key revoked, rotated or
-- otherwise updated; an organization's status or settings) notifies, in the transaction of the change, the
-- organization whose entries every instance drops. A trigger, so no code path (API, CLI, SQL) can forget it.
-- The trigger's argument names the column that holds the organization id.
CREATE FUNCTION notify_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('connect_credentials', to_jsonb(NEW) ->> TG_ARGV[0]);
  RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_credentials_changed('organization_id');
CREATE TRIGGER organizations_changed AFTER UPDATE ON organizations
  FOR EACH ROW EXECUTE FUNCTION notify_credentials_changed('id');
