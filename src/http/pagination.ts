import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import { DomainError } from '../domain/errors.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, parseLimit } from '../domain/page-size.js';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, parseLimit };

/** Query parameters every list route accepts; each list route adds its own filters beside them. */
export const PageQuery = {
  // Read as a string and checked here: lenient coercion would quietly read "1.5" as 1.
  limit: Type.Optional(
    Type.String({
      maxLength: 10,
      description: `Page size, an integer from 1 to ${MAX_PAGE_SIZE} (larger values are clamped); default ${DEFAULT_PAGE_SIZE}.`,
    }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'The `cursor` of the previous page, verbatim.' })),
};

export const ListEnvelope = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({
    has_more: Type.Boolean({ description: 'True if at least one more row exists after this page.' }),
    data: Type.Array(item),
    cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
  });

const invalidCursor = () =>
  new DomainError('invalid_request', 'The cursor is not one this list issued. Pass back the `cursor` of the previous page verbatim.', 'cursor');

/**
 * Cursors are opaque to clients: the position (created_at, id) plus an HMAC over it and the list's name,
 * so a cursor that was altered, or taken from another list, is refused instead of silently misread.
 */
export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  private sign(list: string, payload: string): Buffer {
    return createHmac('sha256', this.secret).update(`${list}\n${payload}`).digest().subarray(0, 16);
  }

  /** `created_at` as a Date, or as the text toISOString gives (rows read in the form they are answered in). */
  encode(list: string, row: { created_at: Date | string; id: string }): string {
    const createdAt = typeof row.created_at === 'string' ? row.created_at : row.created_at.toISOString();
    const payload = Buffer.from(JSON.stringify([createdAt, row.id])).toString('base64url');
    return `${payload}.${this.sign(list, payload).toString('base64url')}`;
  }

  decode(list: string, cursor: string): PageRequest['after'] {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) throw invalidCursor();
    const given = Buffer.from(signature, 'base64url');
    const expected = this.sign(list, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
    const [createdAt, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, string];
    return { createdAt: new Date(createdAt), id };
  }

  pageRequest(list: string, query: { limit?: string; cursor?: string }): PageRequest {
    return {
      limit: parseLimit(query.limit),
      after: query.cursor === undefined ? null : this.decode(list, query.cursor),
    };
  }

  envelope<Row extends { created_at: Date | string; id: string }, Out>(list: string, page: Page<Row>, present: (row: Row) => Out) {
    const last = page.rows[page.rows.length - 1];
    return {
      has_more: page.hasMore,
      data: page.rows.map(present),
      cursor: page.hasMore && last ? this.encode(list, last) : null,
    };
  }
}
