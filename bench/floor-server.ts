import { randomBytes, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { generateRefCode, refCodeHeldUntil } from '../src/domain/payment-intents.js';
import { findIdempotentResponse } from '../src/store/idempotency.js';
import { findIntentWithAddresses, insertIntent } from '../src/store/payment-intents.js';
import { openPostgres } from '../src/store/postgres.js';
import type { Tenant } from '../src/domain/tenancy.js';

/**
 * The floor of the service's database-bound routes: Fastify and node-postgres sending the store's own statements
 * and nothing else (no authentication, validation, address derivation, envelope, hooks or logging), on a pool of
 * the service's default size. Between it and pgbench lies the cost of any Node route on this driver; between the
 * service and it, the service's own work. Run by bench/floor.ts on a database the service seeded.
 */
const tenant: Tenant = { organizationId: process.env.BENCH_FLOOR_ORGANIZATION!, mode: 'test' };
const db = openPostgres({ connectionString: process.env.DATABASE_URL!, maxConnections: 20 });
const app = Fastify({ logger: false });
const INTENT_TTL_MS = 3_600_000;
const ADDRESSES_PER_INTENT = 12;
/** About the size of the answer the service stores with the idempotency record of such a create. */
const STORED_ANSWER = 'x'.repeat(1900);

// The two statements of POST /payment-intents (src/http/idempotency.ts, PaymentIntents.record): the replay check,
// then the ref code, idempotency record, intent and its addresses in one statement (a new code while one is taken).
app.post('/connect/v1/payment-intents', async (_request, reply) => {
  const id = randomUUID();
  const scope = { ...tenant, key: randomUUID() };
  await findIdempotentResponse(db, scope);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + INTENT_TTL_MS);
  const addresses = Array.from({ length: ADDRESSES_PER_INTENT }, (_, position) => ({
    id: randomUUID(),
    asset: 'USDC',
    network: `network${position}`,
    address: `0x${randomBytes(20).toString('hex')}`,
    memo: null,
  }));
  const answer = { scope, requestHash: randomBytes(32).toString('hex'), ttlSeconds: 86_400, status: 201, body: STORED_ANSWER };
  for (;;) {
    const intent = {
      id,
      organization_id: tenant.organizationId,
      mode: tenant.mode,
      profile_id: null,
      external_ref: null,
      ref_code: generateRefCode(),
      amount: '100',
      currency: 'USDC',
      currencies: ['USDC', 'USDT', 'ETH'],
      description: null,
      metadata: { order: 'bench' },
      expires_at: expiresAt,
      created_at: now,
    };
    const outcome = await insertIntent(db, intent, addresses, refCodeHeldUntil(expiresAt), now, answer);
    if (outcome !== 'ref_code_taken') return reply.code(201).send({ id, outcome });
  }
});

// The statement of GET /payment-intents/{id} as pgbench's get-intent ceiling runs it: one intent with its parts.
app.get<{ Params: { id: string } }>('/connect/v1/payment-intents/:id', async (request, reply) => {
  const intent = await findIntentWithAddresses(db, tenant, request.params.id, false);
  return intent ?? reply.code(404).send({});
});

await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 3000) });

process.on('SIGTERM', () => void app.close().then(() => db.close()).then(() => process.exit(0)));
