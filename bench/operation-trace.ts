import { randomUUID } from 'node:crypto';
import inspector from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildApp } from '../src/http/app.js';
import { migrate } from '../src/store/migrate.js';
import { openPglite } from '../src/store/pglite.js';

/**
 * Which files of src/ run during one `POST /refunds` (a sandbox refund of a paid intent), from V8's precise coverage:
 * every function called during that one request, counted exactly (no sampling), grouped by file. The files the
 * request visits, and how many functions of each ran, measure how far one operation spreads (issue 35 item 3).
 * Run at any commit: `npx tsx bench/operation-trace.ts` (it uses only the HTTP API, so an older tree runs it too).
 */
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const ADMIN_TOKEN = 'trace-operator-token-0123456789abcdef';

const db = await openPglite();
await migrate(db);
const ctx = await createContext({ ...loadConfig({}), logLevel: 'silent' }, db);
await ctx.callers.start();
const app = await buildApp(ctx, { adminToken: ADMIN_TOKEN, logger: false });
await app.ready();
const org = await ctx.operator.createOrganization({ name: 'Trace', status: 'active' });
const { key } = await ctx.operator.createApiKey(org.id, { mode: 'test' });

const call = async (method: 'GET' | 'POST', url: string, body?: object) => {
  const res = await app.inject({
    method,
    url: `/connect/v1${url}`,
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
    ...(body ? { payload: body } : {}),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json<{ id?: string; quote_id?: string }>();
};

/** A paid intent and a refund quote of it, ready to execute. */
async function refundQuote(): Promise<string> {
  const intent = await call('POST', '/payment-intents', { amount: '10', currencies: ['USDC'] });
  await call('POST', `/test/payment-intents/${intent.id}/simulate-deposit`, {});
  const quote = await call('POST', `/payment-intents/${intent.id}/refunds/quote`, {
    amount: '5',
    destination: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
    network_fee: 'deducted',
  });
  return quote.quote_id!;
}

const session = new inspector.Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
// One run first, so lazy imports and first-use paths are not counted; taking the coverage resets the counters.
await call('POST', '/refunds', { quote_id: await refundQuote() });
const quoteId = await refundQuote();
await session.post('Profiler.takePreciseCoverage');
await call('POST', '/refunds', { quote_id: quoteId });
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');

const files = result
  .filter((script) => script.url.startsWith(`file://${src}/`))
  .map((script) => ({
    file: path.relative(src, fileURLToPath(script.url)),
    // Closures count too (a route's handler is one); a module's own top level ran at import, before the counters were reset.
    functions: script.functions.filter((fn) => fn.ranges[0]!.count > 0).map((fn) => `${fn.functionName || '(closure)'}×${fn.ranges[0]!.count}`),
  }))
  .filter((entry) => entry.functions.length > 0)
  .sort((a, b) => a.file.localeCompare(b.file));
for (const { file, functions } of files) console.log(`${file}: ${functions.join(', ')}`);
console.log(`\n${files.length} files of src/ ran functions during one POST /refunds`);
await app.close();
await ctx.callers.stop();
await ctx.limiter.close();
await db.close();
