import { DomainError } from './errors.js';

/** The page size of every list (API and CLI): default, and the largest a `limit` is clamped to. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < 1) {
    throw new DomainError('invalid_request', `limit must be an integer from 1 to ${MAX_PAGE_SIZE} (larger values are clamped).`, 'limit');
  }
  return Math.min(Number(raw), MAX_PAGE_SIZE);
}

/** Resuming strictly after the (created_at, id) of the previous page's last row, in the list's order. */
export interface PageRequest {
  limit: number;
  after: { createdAt: Date; id: string } | null;
}

export interface Page<Row> {
  rows: Row[];
  hasMore: boolean;
}
