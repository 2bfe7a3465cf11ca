import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { vi } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createContext, type ContextOptions } from '../../src/context.js';
import type { KeyMode } from '../../src/domain/api-keys.js';
import type { OrganizationStatus } from '../../src/domain/organizations.js';
import { buildApp } from '../../src/http/app.js';
import type { SerializerCache } from '../../src/http/serializers.js';
import type { App } from '../../src/http/route-config.js';
import type { AppContext } from '../../src/context.js';
import type { Database } from '../../src/store/database.js';
import type { NewApiKey } from '../../src/use-cases/operator.js';
import { claimXpub } from '../../src/store/derivation.js';
import { ManualClock } from './clock.js';
import { openTestDatabase, type TestDatabase } from './database.js';

export const ADMIN_TOKEN = 'test-operator-token-0123456789abcdef';
export const DOCS_BASE = 'https://docs.example.test';

export interface TestApp {
  app: App;
  ctx: AppContext;
  db: Database;
  testDb: TestDatabase;
  /** A partner API call: `path` is relative to /connect/v1. */
  call(key: string | null, method: InjectOptions['method'], path: string, options?: CallOptions): Promise<LightMyRequestResponse>;
  /** An operator API call: `path` is relative to /admin/v1. */
  admin(method: InjectOptions['method'], path: string, body?: unknown): Promise<LightMyRequestResponse>;
  /** A new organization with one key; returns the secret key and the ids. */
  tenant(options?: { status?: OrganizationStatus; mode?: KeyMode; key?: Omit<NewApiKey, 'mode'> }): Promise<Tenant>;
  close(): Promise<void>;
}

export interface Tenant {
  organizationId: string;
  keyId: string;
  key: string;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

/**
 * `options` replaces outside worlds: `clock` (a ManualClock from support/clock.ts moves time by hand),
 * `custodyFor` (a provider that fails or records its calls). A new database claims the configured xpubs as their
 * first use (an operator's `connect-payments xpub claim <family> --first-use`), unless `claimXpubs` is false.
 */
export async function startTestApp(
  overrides: Partial<Config> = {},
  existing?: TestDatabase,
  options: ContextOptions = {},
  { claimXpubs = true }: { claimXpubs?: boolean } = {},
): Promise<TestApp> {
  const testDb = existing ?? (await openTestDatabase());
  const config: Config = { ...loadConfig({}), docsBaseUrl: DOCS_BASE, logLevel: 'silent', ...overrides };
  const ctx = await createContext(config, testDb.db, options);
  if (!existing && claimXpubs) {
    for (const [family, live] of [['evm', ctx.liveEvm], ['tron', ctx.liveTron]] as const) {
      if (live) await claimXpub(testDb.db, { family, fingerprint: live.xpub.fingerprint }, 0, 'first_use');
    }
  }
  // Authentication through the key cache, as the server runs it.
  await ctx.callers.start();
  const app = await buildApp(ctx, { adminToken: ADMIN_TOKEN, logger: false, serializers: workerSerializers() });
  await app.ready();

  const call: TestApp['call'] = (key, method, path, options = {}) =>
    app.inject({
      method,
      url: `/connect/v1${path}`,
      headers: {
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...(options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey }),
        ...options.headers,
      },
      ...(options.body === undefined ? {} : { payload: options.body as InjectOptions['payload'] }),
    });

  const admin: TestApp['admin'] = (method, path, body) =>
    app.inject({
      method,
      url: `/admin/v1${path}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
    });

  return {
    app,
    ctx,
    db: testDb.db,
    testDb,
    call,
    admin,
    async tenant(options = {}) {
      const org = await ctx.operator.createOrganization({ name: 'Tenant', status: options.status ?? 'active' });
      const key = await ctx.operator.createApiKey(org.id, { mode: options.mode ?? 'test', ...options.key });
      return { organizationId: org.id, keyId: key.id, key: key.key };
    },
    async close() {
      await app.close();
      await ctx.callers.stop();
      await ctx.limiter.close();
      if (!existing) await testDb.close();
    },
  };
}

/** The response serializers compiled by this worker's apps, file after file (vitest.config.ts: isolate: false). */
const serializers: SerializerCache = new Map();

/**
 * The cache of compiled response serializers that the apps a test builds share: compiling them for every app was a
 * quarter of the suite's CPU time. They are pure functions of their schemas (serializers.ts keys them by content).
 */
export function workerSerializers(): SerializerCache {
  return serializers;
}

/**
 * Runs `work` while `t`'s key cache holds back the credential notifications it hears, and handles them after.
 * On PostgreSQL every test file shares the database's notification channel, so another file's new key makes
 * this cache reload (a statement) at any moment; a test that counts statements counts inside this.
 */
export async function withCredentialNotificationsHeld<T>(t: TestApp, work: () => Promise<T>): Promise<T> {
  // Private members: `heard` is where each notification arrives, `reloads` the reload under way.
  const cache = t.ctx.callers as unknown as { heard(payload: string): Promise<void>; reloads: Promise<void> };
  const held: string[] = [];
  const heard = vi.spyOn(cache, 'heard').mockImplementation(async (payload) => {
    held.push(payload);
  });
  try {
    await cache.reloads;
    return await work();
  } finally {
    heard.mockRestore();
    for (const payload of held) void cache.heard(payload);
  }
}

/**
 * Runs `work` against a second app on `t`'s database whose business clock is a ManualClock starting at the
 * current time. Rows are stamped with that clock, so a test that needs created_at values in a known order
 * advances it between creations instead of sleeping.
 */
export async function withManualClock<T>(
  t: TestApp,
  work: (app: TestApp, clock: ManualClock) => Promise<T>,
  start: Date = new Date(),
): Promise<T> {
  const clock = new ManualClock(start);
  const app = await startTestApp({}, t.testDb, { clock });
  try {
    return await work(app, clock);
  } finally {
    await app.close();
  }
}
