-- Each instance keeps the set of key hashes that were issued and not revoked, so that an address locked out by
-- failed authentications can still be served with a valid key without a database query for every made-up one
-- (src/http/caller-cache.ts). A key created on another instance must reach that set, so creation notifies
-- too, on the same channel; the `created:` prefix says nothing cached changed (a new key was cached nowhere).
CREATE FUNCTION notify_key_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('connect_credentials', 'created:' || NEW.organization_id);
  RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_created AFTER INSERT ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_key_created();
