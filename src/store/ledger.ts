import { randomUUID } from 'node:crypto';
import { creditShard, worldAccountId } from '../domain/ledger.js';
import type { Sql } from './database.js';
import type { Tenant } from './tenancy.js';

export interface WorldCredit {
  /** Unique per tenant: a second transfer with the same cause is refused (null is answered). */
  cause: string;
  transactionId: string;
  profileId: string | null;
  asset: string;
  network: string;
  /** Positive decimal string. */
  amount: string;
  createdAt: Date;
}

/**
 * Money arriving from outside (a deposit): one transfer, world → the owner's available account, in one
 * statement. The owner's account is upserted on a shard (random for a treasury), which locks only that shard;
 * the world account is inserted if missing and otherwise not touched, so it is never a hot row. Answers the
 * transfer id, or null when the cause was already posted (nothing changes then).
 */
export async function creditFromWorld(tx: Sql, tenant: Tenant, credit: WorldCredit): Promise<string | null> {
  const worldId = worldAccountId(tenant.organizationId, tenant.mode, credit.asset, credit.network);
  const [row] = await tx.query<{ transfer_id: string }>(
    `WITH transfer AS (
       INSERT INTO ledger_transfers (id, organization_id, mode, cause, transaction_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (organization_id, mode, cause) DO NOTHING
       RETURNING id
     ), world AS (
       INSERT INTO ledger_accounts (id, organization_id, mode, profile_id, asset, network, balance, kind, shard)
       SELECT $7, $2, $3, NULL, $8, $9, 0, 'world', 0 FROM transfer
       ON CONFLICT ON CONSTRAINT ledger_accounts_identity_key DO NOTHING
     ), owner AS (
       INSERT INTO ledger_accounts (id, organization_id, mode, profile_id, asset, network, balance, kind, shard)
       SELECT $10, $2, $3, $11, $8, $9, $12, 'available', $13 FROM transfer
       ON CONFLICT ON CONSTRAINT ledger_accounts_identity_key DO UPDATE SET balance = ledger_accounts.balance + excluded.balance
       RETURNING id
     )
     INSERT INTO ledger_postings (transfer_id, account_id, asset, amount)
     SELECT transfer.id, owner.id, $8, $12::numeric FROM transfer, owner
     UNION ALL
     SELECT transfer.id, $7, $8, -$12::numeric FROM transfer
     RETURNING transfer_id`,
    [
      randomUUID(),
      tenant.organizationId,
      tenant.mode,
      credit.cause,
      credit.transactionId,
      credit.createdAt,
      worldId,
      credit.asset,
      credit.network,
      randomUUID(),
      credit.profileId,
      credit.amount,
      creditShard(credit.profileId),
    ],
  );
  return row?.transfer_id ?? null;
}

export interface LedgerCheck {
  accounts: number;
  transfers: number;
  postings: number;
  /** Accounts whose running balance differs from the sum of their postings. */
  accountMismatches: { id: string; balance: string; postings: string }[];
  /** Transfers whose postings do not sum to zero for some asset, or that have fewer than two postings. */
  unbalancedTransfers: { id: string; asset: string | null; sum: string | null; postings: number }[];
}

/** The whole ledger's invariants, checked in SQL over every tenant (for `connect-payments ledger verify`). */
export async function checkLedger(sql: Sql): Promise<LedgerCheck> {
  const [counts] = await sql.query<{ accounts: number; transfers: number; postings: number }>(
    `SELECT (SELECT count(*)::int FROM ledger_accounts) AS accounts, (SELECT count(*)::int FROM ledger_transfers) AS transfers,
            (SELECT count(*)::int FROM ledger_postings) AS postings`,
  );
  const accountMismatches = await sql.query<{ id: string; balance: string; postings: string }>(
    `SELECT a.id, a.balance::text AS balance, coalesce(p.sum, 0)::text AS postings
     FROM ledger_accounts a LEFT JOIN (SELECT account_id, sum(amount) AS sum FROM ledger_postings GROUP BY account_id) p ON p.account_id = a.id
     WHERE a.kind <> 'world' AND a.balance <> coalesce(p.sum, 0)
     ORDER BY a.id`,
  );
  const unbalancedTransfers = await sql.query<{ id: string; asset: string | null; sum: string | null; postings: number }>(
    `SELECT t.id, p.asset, p.sum::text AS sum, coalesce(n.postings, 0)::int AS postings
     FROM ledger_transfers t
     LEFT JOIN (SELECT transfer_id, asset, sum(amount) AS sum FROM ledger_postings GROUP BY transfer_id, asset) p ON p.transfer_id = t.id
     LEFT JOIN (SELECT transfer_id, count(*) AS postings FROM ledger_postings GROUP BY transfer_id) n ON n.transfer_id = t.id
     WHERE coalesce(n.postings, 0) < 2 OR p.sum <> 0
     ORDER BY t.id`,
  );
  return { ...counts!, accountMismatches, unbalancedTransfers };
}
