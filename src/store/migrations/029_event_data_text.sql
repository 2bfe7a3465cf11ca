-- Issue 24: an event's `data` as the compact JSON text the API answers with, written once with the event, so that a
-- read hands it through instead of parsing the jsonb and writing it again (most of a GET /events page's CPU).
-- Its keys are in jsonb's order (shorter first, then by bytes), the order every answer has had, so answers keep
-- every byte. Events written before this column existed keep NULL here and are read from `data` as before.
-- `data` stays the jsonb of record (what SQL can look into); the text is derived from it, never edited alone.
ALTER TABLE events ADD COLUMN data_text text;

-- A time as the API prints it (Date.prototype.toISOString: UTC, milliseconds), for reads that hand rows out in
-- the form their answers print, without a Date parsed and formatted again per row. A SQL function, which the
-- planner inlines; it also keeps the format's colons out of statement texts (pgbench reads `:MI` as a variable).
CREATE FUNCTION api_time(at timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
