import { notFound } from '../domain/errors.js';
import { externalRefFilter } from '../domain/identifiers.js';
import { isUuid } from '../domain/ids.js';
import type { PayoutKind, PayoutStatus } from '../domain/payouts.js';
import type { Tenant } from '../domain/tenancy.js';
import type { Sql } from '../store/database.js';
import type { Page, PageRequest } from '../store/pagination.js';
import * as store from '../store/payouts.js';
import type { PayoutRow } from '../store/payouts.js';
import { profileFilter } from '../store/profiles.js';

/**
 * Reads of payouts and refunds (one table, told apart by `kind`). Quotes are `payout-quotes.ts`, execution
 * `payout-execution.ts` (a refund's, `refunds.ts`), outcomes the outbound engine's (src/outbound/), the sandbox's
 * own progress `sandbox-payouts.ts`.
 */
export class Payouts {
  /** One payout of the tenant; GET /payouts never shows refunds, GET /refunds only them (`kind`). */
  async get(sql: Sql, tenant: Tenant, id: string, kind: PayoutKind = 'payout'): Promise<PayoutRow> {
    const payout = isUuid(id) ? await store.findPayout(sql, tenant, id, false, kind) : null;
    if (!payout) throw notFound(kind, `${kind}_id`);
    return payout;
  }

  async list(
    sql: Sql,
    tenant: Tenant,
    filters: { kind?: PayoutKind; externalRef?: string; paymentIntentId?: string; statuses?: PayoutStatus[] },
    page: PageRequest,
  ): Promise<Page<PayoutRow>> {
    const profileId = await profileFilter(sql, tenant, externalRefFilter(filters.externalRef));
    if (profileId === null) return { rows: [], hasMore: false };
    return store.listPayouts(sql, tenant, { kind: filters.kind ?? 'payout', profileId, paymentIntentId: filters.paymentIntentId, statuses: filters.statuses }, page);
  }
}
