/** NUL, or half of a UTF-16 surrogate pair: what PostgreSQL text and jsonb cannot store. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
export const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Anything written as a URL (scheme://…): an RPC provider's puts its API key in the path or the query. */
const URL_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** The text with every URL in it replaced by `<url>`: fit for a log line or a stored reason whatever produced it. */
export const withoutUrls = (text: string): string => text.replace(URL_TEXT, '<url>');
