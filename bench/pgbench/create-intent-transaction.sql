-- The same database work as create-intent-statement.sql in the shape the service used before issue 10: the
-- replay check, then a transaction of claim, intent with addresses, stored answer. Run by bench/pgbench.ts.
\set r random(1, 9000000000000000000)
SELECT request_hash, response_status, response_body FROM idempotency_records
WHERE organization_id = :org::uuid AND mode = 'test' AND idempotency_key = :r::text AND expires_at > now() AND response_status IS NOT NULL;
BEGIN;
INSERT INTO idempotency_records (organization_id, mode, idempotency_key, request_hash, expires_at)
VALUES (:org::uuid, 'test', :r::text, md5(:r::text || 'hash') || md5(:r::text || 'hash2'), now() + interval '1 day')
ON CONFLICT (organization_id, mode, idempotency_key) DO UPDATE
  SET request_hash = excluded.request_hash, response_status = NULL, response_body = NULL,
      created_at = now(), expires_at = excluded.expires_at
  WHERE idempotency_records.expires_at <= now()
RETURNING 1;
WITH code AS (
  INSERT INTO ref_codes (code, payment_intent_id, held_until)
  VALUES (upper(substr(md5(:r::text || 'code'), 1, 5)), md5(:r::text)::uuid, now() + interval '30 days')
  ON CONFLICT (code) DO UPDATE SET payment_intent_id = excluded.payment_intent_id, held_until = excluded.held_until
    WHERE ref_codes.held_until <= now() + interval '31 days'
  RETURNING code
), intent AS (
  INSERT INTO payment_intents (id, organization_id, mode, profile_id, external_ref, ref_code, amount, currency,
    currencies, description, metadata, status, expires_at, created_at)
  SELECT md5(:r::text)::uuid, :org::uuid, 'test', NULL, NULL, code.code, 100, 'USDC', ARRAY['USDC', 'USDT', 'ETH'], NULL,
         '{"order": "bench"}', 'pending', now() + interval '1 hour', now()
  FROM code
  RETURNING id, organization_id, mode, profile_id, external_ref, created_at
), addresses AS (
  INSERT INTO deposit_addresses (id, organization_id, mode, profile_id, external_ref, payment_intent_id, position,
    asset, network, address, memo, created_at)
  SELECT md5(:r::text || 'address' || n)::uuid, intent.organization_id, intent.mode, intent.profile_id, intent.external_ref,
         intent.id, n - 1, 'USDC', 'network' || n, '0x' || md5(:r::text || 'at' || n) || substr(md5(:r::text), 1, 8), NULL,
         intent.created_at
  FROM intent, generate_series(1, 12) AS n
)
SELECT id FROM intent;
UPDATE idempotency_records SET response_status = 201, response_body = repeat('x', 1900)
WHERE organization_id = :org::uuid AND mode = 'test' AND idempotency_key = :r::text;
COMMIT;
