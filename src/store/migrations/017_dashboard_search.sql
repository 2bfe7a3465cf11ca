-- The dashboard's search looks every identifier up across organizations and modes: each lookup needs an index
-- that starts with the identifier itself (the existing ones start with the organization, the mode or the network).
-- Hashes and EVM addresses are matched case-insensitively: the same value is pasted in checksum or lower case.
CREATE INDEX profiles_external_ref_idx ON profiles (external_ref);
CREATE INDEX transactions_tx_hash_idx ON transactions (lower(tx_hash)) WHERE tx_hash IS NOT NULL;
CREATE INDEX payouts_tx_hash_idx ON payouts (lower(tx_hash)) WHERE tx_hash IS NOT NULL;
CREATE INDEX deposit_addresses_address_idx ON deposit_addresses (lower(address));
