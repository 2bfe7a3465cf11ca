-- 004 gave the world accounts it carried over random ids, but the code names a tenant's world account by an id
-- derived from what it is (worldAccountId in src/domain/ledger.ts, derivedUuid in src/domain/ids.ts): a
-- version-8 UUID over the SHA-256 of the JSON array ["connect-payments/world-account/v1", organization id, mode,
-- asset, network]. For a tenant carried over by 004, the next deposit or payout posted to an account that did not
-- exist (a foreign-key violation). Each world account whose id is not the derived one gets it, and its postings
-- follow it. The same SHA-256 over the same JSON text (to_json escapes a string as JSON.stringify does), so
-- PostgreSQL and PGlite compute what the code computes.

CREATE TEMPORARY TABLE world_account_ids ON COMMIT DROP AS
  SELECT id AS old_id,
         (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-8' || substr(h, 14, 3) || '-'
          -- The variant nibble: the hash's 17th hex digit, its two high bits set to 10.
          || substr('89ab', (position(substr(h, 17, 1) IN '0123456789abcdef') - 1) % 4 + 1, 1)
          || substr(h, 18, 3) || '-' || substr(h, 21, 12))::uuid AS new_id
  FROM (
    SELECT id, encode(sha256(convert_to(
             '[' || to_json('connect-payments/world-account/v1'::text)::text || ',' || to_json(organization_id::text)::text || ','
                 || to_json(mode)::text || ',' || to_json(asset)::text || ',' || to_json(network)::text || ']',
             'UTF8')), 'hex') AS h
    FROM ledger_accounts WHERE kind = 'world'
  ) AS world;
DELETE FROM world_account_ids WHERE old_id = new_id;

-- The postings' foreign key is checked per statement, and neither table can move first without breaking it.
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_account_id_fkey;
UPDATE ledger_postings p SET account_id = m.new_id FROM world_account_ids m WHERE p.account_id = m.old_id;
UPDATE ledger_accounts a SET id = m.new_id FROM world_account_ids m WHERE a.id = m.old_id;
ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_account_id_fkey FOREIGN KEY (account_id) REFERENCES ledger_accounts (id);
