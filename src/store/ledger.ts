import { randomUUID } from 'node:crypto';
import { creditShard, worldAccountId, type Holding } from '../domain/ledger.js';
import { Decimal } from '../domain/money.js';
import type { Sql } from './database.js';
import { tenantTotalMismatches, type TenantTotalMismatch } from './tenant-totals.js';
import type { Tenant } from '../domain/tenancy.js';

/*
 * Lock order. A transaction that writes several accounts locks them as: the owner's available shards (by shard),
 * its reserved account, the tenant's world account (waited on only while its first insert is uncommitted), the
 * tenant's fees account. Every function here keeps to it, so no two transactions wait on each other in a cycle
 * (docs/architecture.md, "Ledger lock order").
 */

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
 * the world account is inserted if missing and otherwise not touched, so it is never a hot row (its insert, a
 * CTE the statement does not read, runs last: after the shard, as the lock order wants). Answers the
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
  /** Tenant-wide totals (what GET /balances answers without external_ref) that differ from the tenant's accounts or profiles. */
  tenantTotalMismatches: TenantTotalMismatch[];
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
  return { ...counts!, accountMismatches, unbalancedTransfers, tenantTotalMismatches: await tenantTotalMismatches(sql) };
}

/** Whose funds: the organization's own (profileId null) or one end user's, in one asset on one network. */
export interface Owner {
  profileId: string | null;
  asset: string;
  network: string;
}

export interface TransferMeta {
  cause: string;
  transactionId: string | null;
  createdAt: Date;
}

async function insertTransfer(tx: Sql, tenant: Tenant, meta: TransferMeta): Promise<string> {
  const [row] = await tx.query<{ id: string }>(
    `INSERT INTO ledger_transfers (id, organization_id, mode, cause, transaction_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (organization_id, mode, cause) DO NOTHING RETURNING id`,
    [randomUUID(), tenant.organizationId, tenant.mode, meta.cause, meta.transactionId, meta.createdAt],
  );
  // Callers post a cause once, from a state change guarded by its own row lock: a repeat is a bug, not a retry.
  if (!row) throw new Error(`ledger transfer ${meta.cause} was already posted`);
  return row.id;
}

async function insertPostings(tx: Sql, transferId: string, asset: string, legs: { accountId: string; amount: Decimal }[]): Promise<void> {
  const sum = legs.reduce((total, leg) => total.plus(leg.amount), new Decimal(0));
  if (!sum.isZero()) throw new Error(`unbalanced transfer ${transferId}: postings sum to ${sum.toFixed()}`);
  await tx.query(
    `INSERT INTO ledger_postings (transfer_id, account_id, asset, amount)
     SELECT $1, account_id, $2, amount FROM unnest($3::uuid[], $4::numeric[]) AS leg(account_id, amount)`,
    [transferId, asset, legs.map((l) => l.accountId), legs.map((l) => l.amount.toFixed())],
  );
}

/**
 * Adds `amount` to an account that keeps a running balance, creating it if needed: positive, except on a debt
 * account (whose balance is never above 0).
 */
async function credit(tx: Sql, tenant: Tenant, owner: Owner, kind: 'available' | 'reserved' | 'fees' | 'debt', shard: number, amount: Decimal): Promise<string> {
  const [row] = await tx.query<{ id: string }>(
    `INSERT INTO ledger_accounts (id, organization_id, mode, profile_id, asset, network, balance, kind, shard)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT ON CONSTRAINT ledger_accounts_identity_key DO UPDATE SET balance = ledger_accounts.balance + excluded.balance
     RETURNING id`,
    [randomUUID(), tenant.organizationId, tenant.mode, owner.profileId, owner.asset, owner.network, amount.toFixed(), kind, shard],
  );
  return row!.id;
}

/** The owner's reserved funds, less `amount`: they were reserved by the same payout, so they are there. */
async function debitReserved(tx: Sql, tenant: Tenant, owner: Owner, amount: Decimal): Promise<string> {
  const [row] = await tx.query<{ id: string }>(
    `UPDATE ledger_accounts SET balance = balance - $7
     WHERE organization_id = $1 AND mode = $2 AND profile_id IS NOT DISTINCT FROM $3 AND asset = $4 AND network = $5
       AND kind = 'reserved' AND shard = $6 AND balance >= $7
     RETURNING id`,
    [tenant.organizationId, tenant.mode, owner.profileId, owner.asset, owner.network, 0, amount.toFixed()],
  );
  if (!row) throw new Error(`reserved funds of ${owner.asset}/${owner.network} are short of ${amount.toFixed()}`);
  return row.id;
}

async function ensureWorld(tx: Sql, tenant: Tenant, asset: string, network: string): Promise<string> {
  const id = worldAccountId(tenant.organizationId, tenant.mode, asset, network);
  await tx.query(
    `INSERT INTO ledger_accounts (id, organization_id, mode, profile_id, asset, network, balance, kind, shard)
     VALUES ($1, $2, $3, NULL, $4, $5, 0, 'world', 0) ON CONFLICT ON CONSTRAINT ledger_accounts_identity_key DO NOTHING`,
    [id, tenant.organizationId, tenant.mode, asset, network],
  );
  return id;
}

/** What an owner can spend now on each of `networks`: the sum of its available shards (read without locking). */
export async function availableBalances(
  sql: Sql,
  tenant: Tenant,
  owner: Omit<Owner, 'network'>,
  networks: readonly string[],
): Promise<Map<string, Decimal>> {
  const rows = await sql.query<{ network: string; balance: string }>(
    `SELECT network, sum(balance)::text AS balance FROM ledger_accounts
     WHERE organization_id = $1 AND mode = $2 AND profile_id IS NOT DISTINCT FROM $3 AND asset = $4 AND network = ANY($5::text[])
       AND kind = 'available'
     GROUP BY network`,
    [tenant.organizationId, tenant.mode, owner.profileId, owner.asset, networks],
  );
  const balances = new Map(networks.map((network) => [network, new Decimal(0)]));
  for (const row of rows) balances.set(row.network, new Decimal(row.balance));
  return balances;
}

/** Every shard of the owner's available account, locked in shard order so concurrent debits cannot deadlock. */
function lockAvailable(tx: Sql, tenant: Tenant, owner: Owner): Promise<{ id: string; balance: string }[]> {
  return tx.query<{ id: string; balance: string }>(
    `SELECT id, balance::text AS balance FROM ledger_accounts
     WHERE organization_id = $1 AND mode = $2 AND profile_id IS NOT DISTINCT FROM $3 AND asset = $4 AND network = $5 AND kind = 'available'
     ORDER BY shard FOR UPDATE`,
    [tenant.organizationId, tenant.mode, owner.profileId, owner.asset, owner.network],
  );
}

/** Takes `amount` (no more than the shards hold) from the locked shards in order; answers the debit legs. */
async function debitShards(tx: Sql, shards: { id: string; balance: string }[], amount: Decimal): Promise<{ accountId: string; amount: Decimal }[]> {
  const legs: { accountId: string; amount: Decimal }[] = [];
  let left = amount;
  for (const shard of shards) {
    if (left.isZero()) break;
    const take = Decimal.min(left, new Decimal(shard.balance));
    if (take.isZero()) continue;
    legs.push({ accountId: shard.id, amount: take.negated() });
    left = left.minus(take);
  }
  await tx.query('UPDATE ledger_accounts SET balance = balance + t.delta FROM unnest($1::uuid[], $2::numeric[]) AS t(id, delta) WHERE ledger_accounts.id = t.id', [
    legs.map((l) => l.accountId),
    legs.map((l) => l.amount.toFixed()),
  ]);
  return legs;
}

const heldBy = (shards: { balance: string }[]) => shards.reduce((total, shard) => total.plus(shard.balance), new Decimal(0));

/**
 * Available → reserved, for a payout. `amount` is taken from the owner's locked available shards and the
 * reserved account is credited: one transfer. Short of `amount`, nothing is written and `short` (how much is
 * missing) is answered.
 */
export async function reserveFunds(tx: Sql, tenant: Tenant, owner: Owner, amount: Decimal, meta: TransferMeta): Promise<{ short: Decimal | null }> {
  const shards = await lockAvailable(tx, tenant, owner);
  const held = heldBy(shards);
  if (held.lt(amount)) return { short: amount.minus(held) };
  const legs = await debitShards(tx, shards, amount);
  const transferId = await insertTransfer(tx, tenant, meta);
  legs.push({ accountId: await credit(tx, tenant, owner, 'reserved', 0, amount), amount });
  await insertPostings(tx, transferId, owner.asset, legs);
  return { short: null };
}

/** The owner's reserved funds, locked (after its available shards, as an execution and a release lock them). */
async function lockReserved(tx: Sql, tenant: Tenant, owner: Owner): Promise<Decimal> {
  const [row] = await tx.query<{ balance: string }>(
    `SELECT balance::text AS balance FROM ledger_accounts
     WHERE organization_id = $1 AND mode = $2 AND profile_id IS NOT DISTINCT FROM $3 AND asset = $4 AND network = $5 AND kind = 'reserved' AND shard = 0
     FOR UPDATE`,
    [tenant.organizationId, tenant.mode, owner.profileId, owner.asset, owner.network],
  );
  return new Decimal(row?.balance ?? 0);
}

/** The owner's debt account, locked (after its reserved funds), with what it owes: none when it never owed. */
async function lockDebt(tx: Sql, tenant: Tenant, owner: Owner): Promise<{ id: string; owed: Decimal } | null> {
  const [row] = await tx.query<{ id: string; balance: string }>(
    `SELECT id, balance::text AS balance FROM ledger_accounts
     WHERE organization_id = $1 AND mode = $2 AND profile_id IS NOT DISTINCT FROM $3 AND asset = $4 AND network = $5 AND kind = 'debt' AND shard = 0
     FOR UPDATE`,
    [tenant.organizationId, tenant.mode, owner.profileId, owner.asset, owner.network],
  );
  return row ? { id: row.id, owed: new Decimal(row.balance).negated() } : null;
}

/**
 * Available → the outside world: a credited deposit that the chain took back (a reorganization deeper than its
 * confirmations). Takes what the owner still has available, up to `amount`. What is missing beyond that, as far
 * as it sits in the owner's reserve (a payout or refund that may still fail and give it back), becomes the owner's
 * debt (`owed`): a release repays it before anything becomes available again, so money the chain took never comes
 * back as spendable. The rest (`unrecovered`: spent meanwhile) the operator has to recover outside the ledger.
 */
export async function returnToWorld(tx: Sql, tenant: Tenant, owner: Owner, amount: Decimal, meta: TransferMeta): Promise<{ unrecovered: Decimal; owed: Decimal }> {
  const shards = await lockAvailable(tx, tenant, owner);
  const taken = Decimal.min(amount, heldBy(shards));
  const reserved = await lockReserved(tx, tenant, owner);
  const debt = await lockDebt(tx, tenant, owner);
  const uncovered = Decimal.max(0, reserved.minus(debt?.owed ?? 0));
  const owed = Decimal.min(amount.minus(taken), uncovered);
  if (taken.isZero() && owed.isZero()) return { unrecovered: amount, owed };
  const legs = taken.isZero() ? [] : await debitShards(tx, shards, taken);
  if (!owed.isZero()) legs.push({ accountId: await credit(tx, tenant, owner, 'debt', 0, owed.negated()), amount: owed.negated() });
  const transferId = await insertTransfer(tx, tenant, meta);
  legs.push({ accountId: await ensureWorld(tx, tenant, owner.asset, owner.network), amount: taken.plus(owed) });
  await insertPostings(tx, transferId, owner.asset, legs);
  return { unrecovered: amount.minus(taken).minus(owed), owed };
}

/**
 * Reserved → available: a payout that failed gives its funds back, less what the owner owes (a reorganization took
 * it from the reserve: see returnToWorld), which they repay first. The available shard is locked first, then the
 * reserved account debited, then the debt: the lock order, which an execution on the same owner keeps too
 * (debiting first deadlocked with it).
 */
export async function releaseFunds(tx: Sql, tenant: Tenant, owner: Owner, amount: Decimal, meta: TransferMeta): Promise<void> {
  const to = await credit(tx, tenant, owner, 'available', 0, new Decimal(0));
  const from = await debitReserved(tx, tenant, owner, amount);
  const debt = await lockDebt(tx, tenant, owner);
  const repaid = Decimal.min(amount, debt?.owed ?? 0);
  const legs = [{ accountId: from, amount: amount.negated() }];
  if (!repaid.isZero()) {
    await tx.query('UPDATE ledger_accounts SET balance = balance + $2 WHERE id = $1', [debt!.id, repaid.toFixed()]);
    legs.push({ accountId: debt!.id, amount: repaid });
  }
  const released = amount.minus(repaid);
  if (!released.isZero()) {
    await credit(tx, tenant, owner, 'available', 0, released);
    legs.push({ accountId: to, amount: released });
  }
  const transferId = await insertTransfer(tx, tenant, meta);
  await insertPostings(tx, transferId, owner.asset, legs);
}

/** Reserved → the outside world (what the recipient gets) and the tenant's fees account (the network fee). */
export async function settleFunds(tx: Sql, tenant: Tenant, owner: Owner, sent: { amount: Decimal; fee: Decimal }, meta: TransferMeta): Promise<void> {
  const total = sent.amount.plus(sent.fee);
  const from = await debitReserved(tx, tenant, owner, total);
  const transferId = await insertTransfer(tx, tenant, meta);
  const legs = [
    { accountId: from, amount: total.negated() },
    { accountId: await ensureWorld(tx, tenant, owner.asset, owner.network), amount: sent.amount },
  ];
  if (!sent.fee.isZero()) {
    legs.push({ accountId: await credit(tx, tenant, { profileId: null, asset: owner.asset, network: owner.network }, 'fees', 0, sent.fee), amount: sent.fee });
  }
  await insertPostings(tx, transferId, owner.asset, legs);
}

/** What one owner holds, per asset and network, summed over shards; lines where nothing is held are left out. */
export function holdingsOf(sql: Sql, tenant: Tenant, profileId: string | null): Promise<Holding[]> {
  return sql.query<Holding>(
    `SELECT asset, network,
       coalesce(sum(balance) FILTER (WHERE kind = 'available'), 0)::text AS available,
       coalesce(sum(balance) FILTER (WHERE kind = 'reserved'), 0)::text AS reserved
     FROM ledger_accounts
     WHERE organization_id = $1 AND mode = $2 AND kind IN ('available', 'reserved') AND profile_id IS NOT DISTINCT FROM $3
     GROUP BY asset, network HAVING sum(balance) > 0 ORDER BY asset, network`,
    [tenant.organizationId, tenant.mode, profileId],
  );
}
