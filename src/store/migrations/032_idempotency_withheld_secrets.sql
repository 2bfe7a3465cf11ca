-- Issue 34: an answer that shows a bearer secret (a refund link's `url`) is stored with that field null, so a
-- copy of the database (a replica, a backup) holds no secret; `withheld` names the fields so nulled, and a replay
-- says so (header `Idempotent-Replay-Withheld`). See docs/conventions.md, Idempotency.
ALTER TABLE idempotency_records ADD COLUMN withheld text[] NOT NULL DEFAULT '{}';

-- Answers stored before this held the link whole, for up to 24 hours: the same treatment for them. Only the
-- answer that created a request has a `url` that is not null; the serializer writes compact JSON.
UPDATE idempotency_records
   SET response_body = regexp_replace(response_body, '"url":"[^"]*"', '"url":null'), withheld = '{url}'
 WHERE response_body LIKE '{"id":%"object":"refund_address_request"%' AND response_body ~ '"url":"';
