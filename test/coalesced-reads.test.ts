import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoalescedReads } from '../src/store/coalesced-reads.js';
import { findIntentsWithAddresses, findIntentWithAddresses, type IntentKey } from '../src/store/payment-intents.js';
import type { Tenant as StoreTenant } from '../src/domain/tenancy.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { createIntent, createTenant, getIntent, simulate } from './support/partner.js';
import { genericPlan, statementOf } from './support/plans.js';

let t: TestApp;
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
});
afterAll(() => t.close());

const sandbox = (tenant: Tenant): StoreTenant => ({ organizationId: tenant.organizationId, mode: 'test' });

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Reads of numbers that record each statement's keys and wait for `hold` (when set) before answering. */
function recordingReads(inFlight: number, maxBatch: number, stallMs = 60_000) {
  const statements: number[][] = [];
  const state: { hold: Promise<void> | null; fail: Error | null } = { hold: null, fail: null };
  const reads = new CoalescedReads<number, string>(
    async (keys) => {
      statements.push(keys);
      const { hold, fail } = state;
      if (hold) await hold;
      if (fail) throw fail;
      return keys.map((key) => (key < 0 ? null : `row ${key}`));
    },
    inFlight,
    maxBatch,
    stallMs,
  );
  return { reads, statements, state };
}

describe('coalesced reads', () => {
  it('a read that finds no statement running goes out at once, alone', async () => {
    const { reads, statements } = recordingReads(1, 64);
    const row = reads.load(1);
    expect(statements).toEqual([[1]]);
    expect(await row).toBe('row 1');
  });

  it('reads that arrive while a statement runs go out together in the next one, each answered in its own position', async () => {
    const { reads, statements, state } = recordingReads(1, 64);
    const held = gate();
    state.hold = held.opened;
    const first = reads.load(1);
    const queued = [reads.load(2), reads.load(-1), reads.load(3), reads.load(2)];
    expect(statements).toEqual([[1]]);
    state.hold = null;
    held.open();
    expect(await first).toBe('row 1');
    expect(await Promise.all(queued)).toEqual(['row 2', null, 'row 3', 'row 2']);
    expect(statements).toEqual([[1], [2, -1, 3, 2]]);
  });

  it('no more statements run at once than allowed, and none holds more keys than allowed', async () => {
    const { reads, statements, state } = recordingReads(2, 2);
    const held = gate();
    state.hold = held.opened;
    const all = [1, 2, 3, 4, 5, 6].map((key) => reads.load(key));
    expect(statements).toEqual([[1], [2]]);
    state.hold = null;
    held.open();
    expect(await Promise.all(all)).toEqual(['row 1', 'row 2', 'row 3', 'row 4', 'row 5', 'row 6']);
    expect(statements.slice(2)).toEqual([[3, 4], [5, 6]]);
  });

  it('the next statement is sent before the readers of the one that finished resume', async () => {
    const { reads, statements, state } = recordingReads(1, 64);
    const held = gate();
    state.hold = held.opened;
    const sentWhenFirstResumed = reads.load(1).then(() => statements.length);
    void reads.load(2);
    state.hold = null;
    held.open();
    expect(await sentWhenFirstResumed).toBe(2);
  });

  it('a statement that does not answer in time stops holding back the reads behind it; its own readers still get its answer', async () => {
    const { reads, statements, state } = recordingReads(1, 64, 20);
    const stuck = gate();
    state.hold = stuck.opened;
    const first = reads.load(1);
    const queued = reads.load(2);
    state.hold = null;
    expect(await queued).toBe('row 2');
    expect(statements).toEqual([[1], [2]]);
    stuck.open();
    expect(await first).toBe('row 1');
  });

  it('a failed statement fails its own reads only; the reads queued behind it are answered', async () => {
    const { reads, state } = recordingReads(1, 64);
    const held = gate();
    Object.assign(state, { hold: held.opened, fail: new Error('connection lost') });
    const failing = reads.load(1);
    const queued = reads.load(2);
    Object.assign(state, { hold: null, fail: null });
    held.open();
    await expect(failing).rejects.toThrow('connection lost');
    expect(await queued).toBe('row 2');
  });
});

describe('intents read in one statement for several keys', () => {
  it("each key finds its own tenant's intent; another tenant's id, the other mode or a missing id find nothing", async () => {
    const mine = await createIntent(t, a.key, { currencies: ['USDC', 'ETH'] });
    const theirs = await createIntent(t, b.key);
    const missing = crypto.randomUUID();
    const keys: IntentKey[] = [
      { tenant: sandbox(a), id: mine.id },
      { tenant: sandbox(b), id: mine.id },
      { tenant: { organizationId: a.organizationId, mode: 'live' }, id: mine.id },
      { tenant: sandbox(b), id: theirs.id },
      { tenant: sandbox(a), id: theirs.id },
      { tenant: sandbox(a), id: missing },
      { tenant: sandbox(a), id: mine.id },
    ];
    const found = await findIntentsWithAddresses(t.db, keys);
    const alone = await findIntentWithAddresses(t.db, sandbox(a), mine.id, false);
    const theirsAlone = await findIntentWithAddresses(t.db, sandbox(b), theirs.id, false);
    expect(found).toEqual([alone, null, null, theirsAlone, null, null, alone]);
    expect(alone?.addresses.length).toBeGreaterThan(1);
  });

  it('its generic plan, made while the table is small, looks each key up in the primary key (PGlite keeps it until the next ANALYZE)', async () => {
    const plan = await genericPlan(t.db, await statementOf((sql) => findIntentsWithAddresses(sql, [])), 'jsonb', '[]');
    expect(plan).toContain('Index Scan using payment_intents_pkey');
    expect(plan).not.toContain('Seq Scan on payment_intents');
  });

  it('an empty list of keys reads nothing', async () => {
    expect(await findIntentsWithAddresses(t.db, [])).toEqual([]);
  });
});

describe('GET /payment-intents/{id} under concurrent reads', () => {
  it("concurrent reads of two tenants answer each with its own intent and another tenant's as missing", async () => {
    const mine = await createIntent(t, a.key);
    const theirs = await createIntent(t, b.key);
    const pairs: Array<[string, string]> = [
      [a.key, mine.id],
      [b.key, theirs.id],
      [a.key, theirs.id],
      [b.key, mine.id],
    ];
    const calls = Array.from({ length: 24 }, (_, i) => {
      const [key, id] = pairs[i % 4]!;
      return t.call(key, 'GET', `/payment-intents/${id}`);
    });
    const answers = await Promise.all(calls);
    answers.forEach((res, i) => {
      if (i % 4 < 2) {
        expect(res.statusCode).toBe(200);
        expect(res.json().id).toBe(i % 4 === 0 ? mine.id : theirs.id);
      } else {
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('resource_not_found');
      }
    });
  });

  it('a read that arrives after a write committed sees it, even while an older read of the same intent is still out', async () => {
    const intent = await createIntent(t, a.key);
    // A read whose statement took its snapshot before the deposit, and whose answer is held back until after it.
    const queried = gate();
    const held = gate();
    const reads = new CoalescedReads<IntentKey, unknown>(
      async (keys) => {
        const rows = await findIntentsWithAddresses(t.db, keys);
        queried.open();
        await held.opened;
        return rows;
      },
      1,
      64,
      60_000,
    );
    const older = reads.load({ tenant: sandbox(a), id: intent.id });
    await queried.opened;
    await simulate(t, a.key, intent.id, { amount: '10' });
    const newer = reads.load({ tenant: sandbox(a), id: intent.id });
    held.open();
    expect(await older).toMatchObject({ status: 'pending', deposit_count: 0 });
    expect(await newer).toMatchObject({ status: 'completed', deposit_count: 1 });
    // And through the route, whose reads are coalesced the same way.
    expect((await getIntent(t, a.key, intent.id)).status).toBe('completed');
  });
});
