import { notFound } from '../domain/errors.js';
import { externalRefFilter } from '../domain/identifiers.js';
import { isUuid } from '../domain/ids.js';
import type { Sql } from '../store/database.js';
import { findTransaction, listTransactions, type TransactionFilters, type TransactionRow } from '../store/transactions.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { profileFilter } from '../store/profiles.js';
import type { Tenant } from '../domain/tenancy.js';

/** A ledger row as the API and the dashboard present it. */
export type { TransactionRow };

/** The partner-visible ledger rows of one tenant. */
export class Transactions {
  /** Newest first; `externalRef` narrows to one end user, and one never used lists nothing. */
  async list(
    sql: Sql,
    tenant: Tenant,
    filters: Omit<TransactionFilters, 'profileId'> & { externalRef?: string },
    page: PageRequest,
  ): Promise<Page<TransactionRow>> {
    const { externalRef, ...rest } = filters;
    const profileId = await profileFilter(sql, tenant, externalRefFilter(externalRef));
    if (profileId === null) return { rows: [], hasMore: false };
    return listTransactions(sql, tenant, { ...rest, profileId }, page);
  }

  async get(sql: Sql, tenant: Tenant, id: string): Promise<TransactionRow> {
    const row = isUuid(id) ? await findTransaction(sql, tenant, id) : null;
    if (!row) throw notFound('transaction', 'transaction_id');
    return row;
  }
}
