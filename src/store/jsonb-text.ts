/**
 * JSON text of `value` in the order PostgreSQL's jsonb keeps object keys (shorter keys first, keys of one length
 * by their UTF-8 bytes), compact: the text a jsonb value read back and written with JSON.stringify gives. Stored
 * beside the jsonb, it can be handed out as it is, byte for byte what the parse-and-write round trip answered.
 */
export function jsonbText(value: unknown): string {
  return JSON.stringify(inJsonbOrder(JSON.parse(JSON.stringify(value)) as unknown));
}

function inJsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inJsonbOrder);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([key, inner]) => ({ key, bytes: Buffer.from(key, 'utf8'), inner }));
  entries.sort((a, b) => a.bytes.length - b.bytes.length || Buffer.compare(a.bytes, b.bytes));
  return Object.fromEntries(entries.map(({ key, inner }) => [key, inJsonbOrder(inner)]));
}
