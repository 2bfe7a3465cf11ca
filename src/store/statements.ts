import type { UnitPrices } from '../domain/unit-prices.js';
import type { Sql } from './database.js';
import type { Tenant } from '../domain/tenancy.js';

/**
 * Whose statement: one end user's profile, or (profileId undefined) the whole tenant, the organization and every
 * profile together, as GET /balances without external_ref.
 */
export interface StatementOwner {
  tenant: Tenant;
  profileId: string | undefined;
}

/** An asset on a network and the owner's holding (available + reserved) before the statement's start. */
export interface OpeningLine {
  asset: string;
  network: string;
  opening: string;
}

export interface MovementRow {
  /** The ledger transfer: one movement per transfer that changed the owner's holding. */
  id: string;
  created_at: Date;
  cause: string;
  asset: string;
  network: string;
  /** Signed: the net of the transfer's postings on the owner's available and reserved accounts. */
  amount: string;
  transaction_id: string | null;
  type: string | null;
  status: string | null;
  fee: string | null;
  from_address: string | null;
  to_address: string | null;
  tx_hash: string | null;
  external_ref: string | null;
  payment_intent_id: string | null;
  unit_prices: UnitPrices | null;
  payout_id: string | null;
  /** A refund's intent (its transaction row's refund_payment_intent_id). */
  refunded_intent_id: string | null;
  intent_metadata: Record<string, unknown> | null;
}

/** The nil UUID sorts before every other: a cursor at (from, NIL) starts at the first transfer at `from`. */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** What the owner holds: its available and reserved accounts; `world` and `fees` are the other side of its movements. */
function holdingAccounts(owner: StatementOwner, profileParam: string): { sql: string; params: unknown[] } {
  const base = "a.kind IN ('available', 'reserved')";
  return owner.profileId === undefined ? { sql: base, params: [] } : { sql: `${base} AND a.profile_id = ${profileParam}`, params: [owner.profileId] };
}

/**
 * Per asset and network, what the owner held at `from` (the sum of its holding accounts' postings in transfers
 * dated before it): every pair held then or moved in [from, to), in one statement.
 */
export function openingBalances(sql: Sql, owner: StatementOwner, from: Date, to: Date): Promise<OpeningLine[]> {
  const accounts = holdingAccounts(owner, '$5');
  return sql.query<OpeningLine>(
    `SELECT a.asset, a.network, coalesce(sum(p.amount) FILTER (WHERE t.created_at < $3), 0)::text AS opening
     FROM ledger_accounts a
     JOIN ledger_postings p ON p.account_id = a.id
     JOIN ledger_transfers t ON t.id = p.transfer_id
     WHERE a.organization_id = $1 AND a.mode = $2 AND ${accounts.sql} AND t.created_at < $4
     GROUP BY a.asset, a.network
     HAVING coalesce(sum(p.amount) FILTER (WHERE t.created_at < $3), 0) <> 0 OR count(*) FILTER (WHERE t.created_at >= $3) > 0
     ORDER BY a.asset, a.network`,
    [owner.tenant.organizationId, owner.tenant.mode, from, to, ...accounts.params],
  );
}

/** A page of transfers read, and those of them that were movements. */
export interface MovementsPage {
  movements: MovementRow[];
  /** How many transfers the page read: fewer than asked means the range is exhausted. */
  scanned: number;
  /** Where the next page starts: the last transfer read. */
  last: { createdAt: Date; id: string } | null;
}

/**
 * The next `limit` transfers of the tenant in [from, to), oldest first, after the keyset position `after` (null:
 * from the start), with the movements among them. A transfer whose postings on the owner's holding net to zero
 * (a reservation, a failed payout's release) or touch another owner is not a movement: what this owner holds did
 * not change. The page is cut on transfers before anything is summed, so each page costs the same however long
 * the range (summing first and cutting after re-summed the whole rest of the range at every page).
 */
export async function movementsPage(
  sql: Sql,
  owner: StatementOwner,
  range: { from: Date; to: Date },
  after: { createdAt: Date; id: string } | null,
  limit: number,
): Promise<MovementsPage> {
  const accounts = holdingAccounts(owner, '$8');
  const rows = await sql.query<Omit<MovementRow, 'asset' | 'network' | 'amount'> & { asset: string | null; network: string | null; amount: string | null }>(
    `WITH page AS (
       SELECT t.id, t.created_at, t.cause, t.transaction_id
       FROM ledger_transfers t
       WHERE t.organization_id = $1 AND t.mode = $2 AND t.created_at >= $3 AND t.created_at < $4
         AND (t.created_at, t.id) > ($5::timestamptz, $6::uuid)
       ORDER BY t.created_at, t.id
       LIMIT $7
     ), moved AS (
       SELECT p.transfer_id, a.asset, a.network, sum(p.amount) AS amount
       FROM ledger_postings p
       JOIN ledger_accounts a ON a.id = p.account_id
       WHERE p.transfer_id IN (SELECT id FROM page) AND ${accounts.sql}
       GROUP BY p.transfer_id, a.asset, a.network
       HAVING sum(p.amount) <> 0
     )
     SELECT page.id, page.created_at, page.cause, page.transaction_id, m.asset, m.network, m.amount::text AS amount,
            x.type, x.status, x.fee::text AS fee, x.from_address, x.to_address, x.tx_hash, x.external_ref, x.payment_intent_id,
            x.unit_prices, po.id AS payout_id, x.refund_payment_intent_id AS refunded_intent_id, pi.metadata AS intent_metadata
     FROM page
     LEFT JOIN moved m ON m.transfer_id = page.id
     LEFT JOIN transactions x ON x.id = page.transaction_id AND m.transfer_id IS NOT NULL
     LEFT JOIN payouts po ON po.transaction_id = x.id AND po.organization_id = $1 AND po.mode = $2
     LEFT JOIN payment_intents pi ON pi.id = x.payment_intent_id AND pi.organization_id = $1 AND pi.mode = $2
     ORDER BY page.created_at, page.id`,
    [owner.tenant.organizationId, owner.tenant.mode, range.from, range.to, after?.createdAt ?? range.from, after?.id ?? NIL_UUID, limit, ...accounts.params],
  );
  const lastRow = rows.at(-1);
  return {
    movements: rows.filter((row): row is MovementRow => row.amount !== null),
    scanned: new Set(rows.map((row) => row.id)).size,
    last: lastRow ? { createdAt: lastRow.created_at, id: lastRow.id } : null,
  };
}
