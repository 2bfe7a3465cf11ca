import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../store/database.js';
import { purgeExpiredIdempotencyRecords } from '../store/idempotency.js';

/** Deletes idempotency records past their 24 h lifetime, every `intervalSeconds`. Returns a stop function. */
export function startIdempotencySweeper(db: Database, intervalSeconds: number, log: FastifyBaseLogger): () => void {
  const sweep = () =>
    purgeExpiredIdempotencyRecords(db)
      .then((purged) => purged > 0 && log.info({ purged }, 'purged expired idempotency records'))
      .catch((err: unknown) => log.error({ err }, 'idempotency sweep failed'));
  const timer = setInterval(sweep, intervalSeconds * 1000);
  timer.unref();
  void sweep();
  return () => clearInterval(timer);
}
