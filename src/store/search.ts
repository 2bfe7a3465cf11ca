import type { KeyMode } from '../domain/api-keys.js';
import { searchedRefs } from '../domain/identifiers.js';
import { isUuid } from '../domain/ids.js';
import { isRefCode } from '../domain/payment-intents.js';
import type { Sql } from './database.js';

/** The objects the dashboard has a page for; also the `related_to_kind` values of events. */
export const OBJECT_KINDS = ['payment_intent', 'payout', 'transaction', 'address'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export const OBJECT_TABLES: Record<ObjectKind, string> = {
  payment_intent: 'payment_intents',
  payout: 'payouts',
  transaction: 'transactions',
  address: 'deposit_addresses',
};

export type MatchedBy = 'id' | 'ref_code' | 'external_ref' | 'tx_hash' | 'address';

export interface Found {
  kind: ObjectKind;
  id: string;
  matched: MatchedBy;
  organization_id: string;
  organization_name: string;
  mode: KeyMode;
  /** One line on what the object is: amount, asset, status. */
  summary: string;
  created_at: Date;
}

/** Enough for one screen; an identifier that matches more is not an identifier. */
export const MAX_FOUND = 50;

const SUMMARY: Record<ObjectKind, string> = {
  payment_intent: `o.amount || ' ' || o.currency || ', ' || o.status`,
  payout: `o.amount || ' ' || o.asset || ' on ' || o.network || ', ' || o.status`,
  transaction: `o.type || ' ' || o.amount || ' ' || o.asset || coalesce(' on ' || o.network, '') || ', ' || o.status`,
  address: `o.asset || ' on ' || o.network || ' ' || o.address`,
};

/** One lookup: the rows of `kind` that `where` (over alias `o`, and `joins`) selects, each through an index. */
const branch = (kind: ObjectKind, matched: MatchedBy, where: string, joins = '') =>
  `(SELECT '${kind}' AS kind, o.id::text AS id, '${matched}' AS matched, o.organization_id, o.mode, ${SUMMARY[kind]} AS summary, o.created_at
    FROM ${OBJECT_TABLES[kind]} o ${joins} WHERE ${where} LIMIT ${MAX_FOUND})`;

/**
 * Everything one identifier names, in every organization and mode: by id (any object), ref code, external_ref
 * (the user's intents and payouts), on-chain hash (transactions, payouts, and any transaction signed for a live
 * payout, a replaced one too) or deposit address. Only lookups the query's shape allows are run, each on an index
 * (migration 017). `text` is the box's text as sent: trimmed here for every lookup but the external_ref's, which
 * tries each ref the text may mean (`searchedRefs`: as sent, trimmed, unescaped, NFC).
 */
export async function searchObjects(sql: Sql, text: string): Promise<Found[]> {
  const query = text.trim();
  const branches = [
    branch('payment_intent', 'external_ref', 'p.external_ref = ANY($2::text[])', 'JOIN profiles p ON o.profile_id = p.id'),
    branch('payout', 'external_ref', 'p.external_ref = ANY($2::text[])', 'JOIN profiles p ON o.profile_id = p.id'),
    branch('transaction', 'tx_hash', 'lower(o.tx_hash) = lower($1)'),
    branch('payout', 'tx_hash', 'lower(o.tx_hash) = lower($1)'),
    branch(
      'payout',
      'tx_hash',
      'o.id = (SELECT n.payout_id FROM evm_signed_txs s JOIN evm_payout_txs n ON n.id = s.nonce_id WHERE s.tx_hash = lower($1))',
    ),
    // Every transaction signed for a payout on a chain without nonces, the expired ones too (migration 020).
    branch('payout', 'tx_hash', 'o.id = (SELECT e.payout_id FROM expiring_payout_txs e WHERE e.tx_id = lower($1))'),
    branch('address', 'address', 'lower(o.address) = lower($1)'),
  ];
  if (isRefCode(query.toUpperCase())) branches.push(branch('payment_intent', 'ref_code', 'o.ref_code = upper($1)'));
  if (isUuid(query)) branches.push(...OBJECT_KINDS.map((kind) => branch(kind, 'id', 'o.id = $1::uuid')));
  // DISTINCT: a live payout's hash is both on the payout and among its signed transactions.
  return sql.query<Found>(
    `SELECT DISTINCT f.kind, f.id, f.matched, f.organization_id, g.name AS organization_name, f.mode, f.summary, f.created_at
     FROM (${branches.join(' UNION ALL ')}) f JOIN organizations g ON g.id = f.organization_id
     ORDER BY f.created_at DESC, f.id LIMIT ${MAX_FOUND}`,
    [query, searchedRefs(text)],
  );
}

/** The stored row of one object, every column but the payout engine's lease token; null when there is none. */
export async function findObject(sql: Sql, kind: ObjectKind, id: string): Promise<Record<string, unknown> | null> {
  if (!isUuid(id)) return null;
  const [row] = await sql.query<Record<string, unknown>>(`SELECT * FROM ${OBJECT_TABLES[kind]} WHERE id = $1`, [id]);
  if (!row) return null;
  delete row.lease_token;
  return row;
}

/** The events about one object, newest first. */
export function eventsAbout(sql: Sql, id: string): Promise<{ id: string; type: string; created_at: Date }[]> {
  return sql.query(`SELECT id, type, created_at FROM events WHERE related_to = $1 ORDER BY created_at DESC, id DESC LIMIT ${MAX_FOUND}`, [
    id,
  ]);
}

export interface IntentRefund {
  id: string;
  status: string;
  asset: string;
  network: string;
  refund_amount: string;
  recipient_gets: string;
  destination: string;
  tx_hash: string | null;
  created_at: Date;
}

/** The refunds of one intent, oldest first: shown beside it (they are payouts of kind refund). */
export function refundsOfIntent(sql: Sql, intentId: string): Promise<IntentRefund[]> {
  return sql.query<IntentRefund>(
    `SELECT id, status, asset, network, refund_amount::text AS refund_amount, amount::text AS recipient_gets, destination, tx_hash, created_at
     FROM payouts WHERE payment_intent_id = $1 AND kind = 'refund' ORDER BY created_at, id`,
    [intentId],
  );
}
