import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, EVENT_TYPES, RELATED_KINDS, type EventType, type RelatedKind } from '../src/domain/events.js';
import { Event } from '../src/http/resources/event.js';
import { jsonbText } from '../src/store/jsonb-text.js';
import type { Tenant as StoreTenant } from '../src/domain/tenancy.js';
import { recordEvent } from '../src/use-cases/events.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';

// An event's JSON text is written by PostgreSQL (src/http/json-sql.ts); these rules hold it to what the Event
// schema's own serializer writes, for the rows the recorded answers of test/read-responses.test.ts do not hold.
let t: TestApp;
let tenant: Tenant;
let live: Tenant;
const serialize = fastJson(Event as never);

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
  live = await t.tenant({ mode: 'live' });
});
afterAll(() => t.close());

const awkward = { note: 'quote " backslash \\ newline \n tab \t bell \u0007 sep \u2028 é ✓ 𝄞', n: 1.5, list: [null, true, { b: 1, a: 2 }] };

/** Events of both modes, with and without a related object, as the serializer would print them. */
async function record(): Promise<Array<{ mode: StoreTenant['mode']; text: string }>> {
  const written: Array<{ mode: StoreTenant['mode']; text: string }> = [];
  const cases: Array<[StoreTenant['mode'], EventType, { id: string; kind: RelatedKind } | null, Record<string, unknown>]> = [
    ['test', 'payment_intent.completed', null, awkward],
    ['test', 'payout.completed', { id: crypto.randomUUID(), kind: 'payout' }, { amount: '10.50' }],
    ['live', 'payment_intent.expired', { id: crypto.randomUUID(), kind: 'payment_intent' }, {}],
  ];
  for (const [index, [mode, type, related, data]] of cases.entries()) {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, index));
    const owner = mode === 'live' ? live : tenant;
    await recordEvent(t.db, { organizationId: owner.organizationId, mode }, type, data, related, at);
    const [row] = await t.db.query<{ id: string }>('SELECT id FROM events WHERE organization_id = $1 AND created_at = $2', [owner.organizationId, at]);
    const text = serialize({
      id: row!.id,
      object: 'event',
      type,
      livemode: mode === 'live',
      api_version: API_VERSION,
      created_at: at.toISOString(),
      data: JSON.parse(jsonbText(data)),
      related_to: related?.id ?? null,
      related_to_kind: related?.kind ?? null,
    });
    written.push({ mode, text });
  }
  return written;
}

describe('events as JSON text written by the database', () => {
  it('names from the fixed lists need no JSON escaping (they are written between quotes as they are)', () => {
    for (const name of [...Object.keys(EVENT_TYPES), ...RELATED_KINDS, API_VERSION]) expect(JSON.stringify(name)).toBe(`"${name}"`);
  });

  it("an event, and a page of them, are byte for byte what the Event schema's serializer writes, old rows too", async () => {
    const written = await record();
    const check = async () => {
      for (const { mode, text } of written) {
        const id = (JSON.parse(text) as { id: string }).id;
        expect((await t.call((mode === 'live' ? live : tenant).key, 'GET', `/events/${id}`)).body).toBe(text);
      }
      const page = await t.call(tenant.key, 'GET', '/events?limit=1');
      const sandbox = written.filter((w) => w.mode === 'test').map((w) => w.text);
      expect(page.body).toMatch(new RegExp(`^\\{"has_more":true,"data":\\[${escape(sandbox.at(-1)!)}\\],"cursor":"[^"]+"\\}$`));
      const next = await t.call(tenant.key, 'GET', `/events?limit=5&cursor=${page.json<{ cursor: string }>().cursor}`);
      expect(next.body).toBe(`{"has_more":false,"data":[${sandbox.slice(0, -1).reverse().join(',')}],"cursor":null}`);
    };
    await check();
    await t.db.query('UPDATE events SET data_text = NULL WHERE organization_id IN ($1, $2)', [tenant.organizationId, live.organizationId]);
    await check();
  });

  it('an empty page is an empty list', async () => {
    const other = await t.tenant();
    expect((await t.call(other.key, 'GET', '/events')).body).toBe('{"has_more":false,"data":[],"cursor":null}');
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
