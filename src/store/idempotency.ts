import type { KeyMode } from '../domain/api-keys.js';
import type { Sql } from './database.js';

export interface IdempotencyScope {
  organizationId: string;
  mode: KeyMode;
  key: string;
}

export interface StoredResponse {
  request_hash: string;
  response_status: number;
  response_body: string;
  /** Fields of the body that held a secret when answered, stored null (docs/conventions.md, Idempotency). */
  withheld: string[];
}

/** The answer an operation writes under its key: `body` as a replay will answer it. */
export interface StoredAnswer {
  status: number;
  body: string;
  withheld: readonly string[];
}

/**
 * Claims the key for this transaction, or reports who holds it. A concurrent claim of the same key waits
 * on the unique index until the holder commits (then it sees the stored response) or rolls back (then it
 * claims the key itself). A record past its expiry is taken over as if absent.
 */
export async function claimIdempotencyKey(
  tx: Sql,
  scope: IdempotencyScope,
  requestHash: string,
  ttlSeconds: number,
): Promise<StoredResponse | null> {
  const claimed = await tx.query(
    `INSERT INTO idempotency_records (organization_id, mode, idempotency_key, request_hash, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
     ON CONFLICT (organization_id, mode, idempotency_key) DO UPDATE
       SET request_hash = excluded.request_hash, response_status = NULL, response_body = NULL, withheld = '{}',
           created_at = now(), expires_at = excluded.expires_at
       WHERE idempotency_records.expires_at <= now()
     RETURNING 1`,
    [scope.organizationId, scope.mode, scope.key, requestHash, ttlSeconds],
  );
  if (claimed.length > 0) return null;
  return (await heldResponse(tx, scope))!;
}

/** The record under the key, whoever wrote it (read after a claim found the key held). */
export async function heldResponse(sql: Sql, scope: IdempotencyScope): Promise<StoredResponse | null> {
  const [held] = await sql.query<StoredResponse>(
    `SELECT request_hash, response_status, response_body, withheld FROM idempotency_records
     WHERE organization_id = $1 AND mode = $2 AND idempotency_key = $3`,
    [scope.organizationId, scope.mode, scope.key],
  );
  return held ?? null;
}

/** A key claimed together with the answer it will replay: the idempotency record of a single-statement write. */
export interface AnswerClaim {
  scope: IdempotencyScope;
  requestHash: string;
  ttlSeconds: number;
  status: number;
  body: string;
}

/**
 * The CTE `claim` of a statement that writes an operation and its idempotency record at once: it yields one
 * row when this statement claimed the key (recording the answer), none when another request holds it. It
 * claims only if `gate` (a CTE of the same statement) yields a row, when one is named, and the operation's
 * own CTEs select `FROM claim`, so the statement writes both or neither. A concurrent claim of the key waits
 * on the unique index until the holder's statement commits, then yields nothing: the holder's answer is
 * then readable.
 */
export function claimCte(claim: AnswerClaim, gate: string | null, param: (value: unknown) => string): string {
  const { scope } = claim;
  return `claim AS (
       INSERT INTO idempotency_records (organization_id, mode, idempotency_key, request_hash, expires_at, response_status, response_body)
       SELECT ${param(scope.organizationId)}, ${param(scope.mode)}, ${param(scope.key)}, ${param(claim.requestHash)},
              now() + make_interval(secs => ${param(claim.ttlSeconds)}), ${param(claim.status)}, ${param(claim.body)}
       ${gate === null ? '' : `FROM ${gate}`}
       ON CONFLICT (organization_id, mode, idempotency_key) DO UPDATE
         SET request_hash = excluded.request_hash, response_status = excluded.response_status,
             response_body = excluded.response_body, withheld = excluded.withheld, created_at = now(),
             expires_at = excluded.expires_at
         WHERE idempotency_records.expires_at <= now()
       RETURNING 1
     )`;
}

/** The answer already stored under a live key, read without taking it (before an operation's outside work). */
export async function findIdempotentResponse(sql: Sql, scope: IdempotencyScope): Promise<StoredResponse | null> {
  const [held] = await sql.query<StoredResponse>(
    `SELECT request_hash, response_status, response_body, withheld FROM idempotency_records
     WHERE organization_id = $1 AND mode = $2 AND idempotency_key = $3 AND expires_at > now() AND response_status IS NOT NULL`,
    [scope.organizationId, scope.mode, scope.key],
  );
  return held ?? null;
}

export async function storeIdempotentResponse(tx: Sql, scope: IdempotencyScope, answer: StoredAnswer): Promise<void> {
  await tx.query(
    `UPDATE idempotency_records SET response_status = $4, response_body = $5, withheld = $6
     WHERE organization_id = $1 AND mode = $2 AND idempotency_key = $3`,
    [scope.organizationId, scope.mode, scope.key, answer.status, answer.body, answer.withheld],
  );
}

export async function purgeExpiredIdempotencyRecords(sql: Sql): Promise<number> {
  const rows = await sql.query('DELETE FROM idempotency_records WHERE expires_at <= now() RETURNING 1');
  return rows.length;
}
