import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../src/domain/access.js';
import { REF_CODE_DRAWS, REF_CODE_RETENTION_DAYS } from '../src/domain/payment-intents.js';
import { custodyFor } from '../src/custody/index.js';
import { Operations } from '../src/use-cases/once.js';
import { PaymentIntents, type IntentView } from '../src/use-cases/payment-intents.js';
import { startTestApp, type TestApp } from './support/app.js';
import { sandboxCaller } from './support/caller.js';
import { ManualClock } from './support/clock.js';
import { createTenant } from './support/partner.js';

/**
 * ref_code is 5 characters of a 31-letter alphabet: 28.6 million codes. They must not run out, so a code is
 * reserved only while its intent can still be looked up (until expires_at + the retention window). Filling
 * the real space takes minutes, so these tests draw from a small slice of it (31 codes) and fill all of it.
 */
const DAY_MS = 86_400_000;
const SLICE = [...'23456789ABCDEFGHJKMNPQRSTUVWXYZ'].map((c) => `ZZZZ${c}`);

let t: TestApp;
let caller: Caller;
beforeAll(async () => {
  t = await startTestApp();
  const tenant = await createTenant(t);
  caller = sandboxCaller(tenant.organizationId, tenant.keyId);
});
afterAll(() => t.close());

/** Intents drawing only from `codes`, in order, counting the draws. */
function intentsDrawing(clock: ManualClock, codes: string[]) {
  const drawn: string[] = [];
  let next = 0;
  const intents = new PaymentIntents(t.db, t.ctx.catalog, custodyFor, clock, new Operations(t.db), () => {
    const code = codes[next++ % codes.length]!;
    drawn.push(code);
    return code;
  });
  const create = async () => {
    const prepared = await intents.prepare(caller, { amount: '10', currencies: ['USDC'] });
    let recorded: IntentView | null = null;
    const written = await intents.record(t.db, prepared, (view) => {
      recorded = view;
      const scope = { organizationId: caller.organizationId, mode: caller.mode, key: randomUUID() };
      return { scope, requestHash: 'h', ttlSeconds: 60, status: 201, body: '{}' };
    });
    expect(written).toBe(true);
    return recorded! as IntentView;
  };
  return { create, drawn };
}

describe('ref_code reuse', () => {
  it('every code of a full slice is held by a pending intent: creation gives up after a bounded number of draws, storing nothing', async () => {
    const clock = new ManualClock();
    const filler = intentsDrawing(clock, SLICE);
    for (let i = 0; i < SLICE.length; i++) await filler.create();
    expect(filler.drawn).toEqual(SLICE);

    const intentsBefore = (await t.db.query('SELECT 1 FROM payment_intents')).length;
    const late = intentsDrawing(clock, SLICE);
    await expect(late.create()).rejects.toThrow(`no free ref_code in ${REF_CODE_DRAWS} draws`);
    expect(late.drawn).toHaveLength(REF_CODE_DRAWS);
    expect((await t.db.query('SELECT 1 FROM payment_intents')).length).toBe(intentsBefore);
  });

  it('codes are still held during the retention window after expiry, and free once it has passed', async () => {
    const clock = new ManualClock();
    const codes = SLICE.map((c) => c.replace('ZZZZ', 'YYYY'));
    const filler = intentsDrawing(clock, codes);
    const first = [];
    for (let i = 0; i < codes.length; i++) first.push(await filler.create());

    // One hour TTL, then the retention window: one millisecond short of it, every code is still held.
    clock.advance(3_600_000 + REF_CODE_RETENTION_DAYS * DAY_MS - 1);
    await expect(intentsDrawing(clock, codes).create()).rejects.toThrow('no free ref_code');

    clock.advance(1);
    const reuse = intentsDrawing(clock, codes);
    const second = [];
    for (let i = 0; i < codes.length; i++) second.push(await reuse.create());
    expect(reuse.drawn).toEqual(codes);
    expect(second.map((i) => i.ref_code)).toEqual(first.map((i) => i.ref_code));

    // A code names its newest intent; the old intent keeps the code it was created with.
    const rows = await t.db.query<{ code: string; payment_intent_id: string }>(
      'SELECT code, payment_intent_id FROM ref_codes WHERE code = ANY($1::text[]) ORDER BY code',
      [codes],
    );
    expect(rows.map((r) => r.payment_intent_id).sort()).toEqual(second.map((i) => i.id).sort());
    const [old] = await t.db.query<{ ref_code: string }>('SELECT ref_code FROM payment_intents WHERE id = $1', [first[0]!.id]);
    expect(old!.ref_code).toBe(first[0]!.ref_code);
  });

  it('with most of a slice held, creation still succeeds within the bounded draws by finding a free code', async () => {
    const clock = new ManualClock();
    const codes = SLICE.map((c) => c.replace('ZZZZ', 'XXXX'));
    const filler = intentsDrawing(clock, codes.slice(0, codes.length - 1));
    for (let i = 0; i < codes.length - 1; i++) await filler.create();
    // The draws visit the held codes first: the free one is found on the last allowed draw.
    const order = [...codes.slice(0, REF_CODE_DRAWS - 1), codes[codes.length - 1]!];
    const late = intentsDrawing(clock, order);
    const intent = await late.create();
    expect(intent.ref_code).toBe(codes[codes.length - 1]);
    expect(late.drawn).toHaveLength(REF_CODE_DRAWS);
  });

  it('through the API, intents keep getting distinct codes from the whole space', async () => {
    const tenant = await createTenant(t);
    const codes = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await t.call(tenant.key, 'POST', '/payment-intents', { body: { amount: '10', currencies: ['USDC'] }, idempotencyKey: `rc-${i}` });
      expect(res.statusCode).toBe(201);
      codes.add(res.json().ref_code);
    }
    expect(codes.size).toBe(20);
    for (const code of codes) expect(code).toMatch(/^[2-9A-HJKMNP-Z]{5}$/);
  });
});
