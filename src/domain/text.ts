/** NUL, or half of a UTF-16 surrogate pair: what PostgreSQL text and jsonb cannot store. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
export const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
