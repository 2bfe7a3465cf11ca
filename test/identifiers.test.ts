import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeIdentifier, externalRef, unescapeIdentifier } from '../src/domain/identifiers.js';
import { startTestApp, type TestApp } from './support/app.js';
import { countRows, createAddress, createTenant, errorOf, json, simulateAddress } from './support/partner.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const SOLANA_DESTINATION = 'So11111111111111111111111111111111111111112';

/** One ref of each refused class, each looking like (or next to) an accepted one. */
const REFUSED: [string, string][] = [
  ['a zero-width space', 'user-42\u200b'],
  ['a byte order mark', '\ufeffuser-42'],
  ['a right-to-left override (U+202E)', 'user-\u202e24'],
  ['a bidi isolate (U+2066)', '\u2066user-42\u2069'],
  ['a TAB', 'user\t42'],
  ['a CR', 'user-42\r'],
  ['an LF', 'user\n42'],
  ['a line separator', 'user\u202842'],
  ['a paragraph separator', 'user\u202942'],
  ['a no-break space', 'user\u00a042'],
  ['a trailing space', 'user-42 '],
  ['a leading space', ' user-42'],
  ['a Hangul filler (invisible letter)', 'user-42\u3164'],
  ['a variation selector', 'user-42\ufe0f'],
  ['a private-use character', 'user-42\ue000'],
  ['an unassigned code point', 'user-42\u0378'],
  ['a text of 256 characters', 'é'.repeat(256)],
];

/** Every way an external_ref enters the partner and operator APIs, each with how it is sent. */
type Entry = [string, (key: string, organizationId: string, ref: string) => Promise<{ statusCode: number; body: string }>];
const q = encodeURIComponent;
const ENTRIES: Entry[] = [
  ['POST /payment-intents', (key, _, ref) => t.call(key, 'POST', '/payment-intents', { body: { amount: '10', currencies: ['USDC'], external_ref: ref }, idempotencyKey: randomUUID() })],
  ['POST /addresses', (key, _, ref) => t.call(key, 'POST', '/addresses', { body: { asset: 'USDC', network: 'solana', external_ref: ref }, idempotencyKey: randomUUID() })],
  ['POST /payouts/quote', (key, _, ref) =>
    t.call(key, 'POST', '/payouts/quote', { body: { asset: 'USDC', destination: SOLANA_DESTINATION, amount: '1', external_ref: ref }, idempotencyKey: randomUUID() })],
  ['GET /balances?external_ref=', (key, _, ref) => t.call(key, 'GET', `/balances?external_ref=${q(ref)}`)],
  ['GET /balances/{external_ref}', (key, _, ref) => t.call(key, 'GET', `/balances/${q(ref)}`)],
  ['GET /payment-intents?external_ref=', (key, _, ref) => t.call(key, 'GET', `/payment-intents?external_ref=${q(ref)}`)],
  ['GET /addresses?external_ref=', (key, _, ref) => t.call(key, 'GET', `/addresses?external_ref=${q(ref)}`)],
  ['GET /transactions?external_ref=', (key, _, ref) => t.call(key, 'GET', `/transactions?external_ref=${q(ref)}`)],
  ['GET /payouts?external_ref=', (key, _, ref) => t.call(key, 'GET', `/payouts?external_ref=${q(ref)}`)],
  ['GET /refunds?external_ref=', (key, _, ref) => t.call(key, 'GET', `/refunds?external_ref=${q(ref)}`)],
  ['GET /reports/transactions?external_ref=', (key, _, ref) => t.call(key, 'GET', `/reports/transactions?from=2026-11-01&to=2026-11-30&external_ref=${q(ref)}`)],
  ['GET /admin/v1/organizations/{id}/reports/transactions?external_ref=', (_, organizationId, ref) =>
    t.admin('GET', `/organizations/${organizationId}/reports/transactions?mode=test&from=2026-11-01&to=2026-11-30&external_ref=${q(ref)}`)],
];

describe('external_ref refuses control, format, bidi, separator, invisible and unassigned characters with a 400 naming the field', () => {
  for (const [entry, send] of ENTRIES) {
    it(`${entry}: every refused class is a 400 invalid_request with param external_ref`, async () => {
      const tenant = await createTenant(t);
      for (const [what, ref] of REFUSED) {
        // Longer than a path parameter may be is the router's 414 (docs/errors.md), before any route.
        if (entry.includes('{external_ref}') && [...ref].length > 255) continue;
        const res = await send(tenant.key, tenant.organizationId, ref);
        expect(res.statusCode, `${what}: ${res.body}`).toBe(400);
        expect(errorOf(res as Parameters<typeof errorOf>[0]), what).toMatchObject({ code: 'invalid_request', param: 'external_ref' });
      }
      expect(await countRows(t, 'SELECT 1 FROM profiles WHERE organization_id = $1', [tenant.organizationId])).toBe(0);
    });
  }

  it('the answer names the character and where it is', async () => {
    const tenant = await createTenant(t);
    const res = await t.call(tenant.key, 'GET', `/balances/${q('user-42\u200b')}`);
    expect(errorOf(res).message).toContain('external_ref contains U+200B, a format character (invisible, or a bidi control), at character 8');
  });

  it('user-42 and user-42 with a zero-width space cannot hold two balances: the second is refused', async () => {
    const tenant = await createTenant(t);
    await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: 'user-42' });
    const res = await t.call(tenant.key, 'POST', '/addresses', { body: { asset: 'USDC', network: 'solana', external_ref: 'user-42\u200b' }, idempotencyKey: randomUUID() });
    expect(res.statusCode).toBe(400);
    expect(await countRows(t, 'SELECT 1 FROM profiles WHERE organization_id = $1', [tenant.organizationId])).toBe(1);
  });
});

describe('external_ref is NFC-normalized before it is stored and before every lookup', () => {
  const NFD = 'jose\u0301-42';
  const NFC = 'jos\u00e9-42';

  it('a deposit to the NFD form is the balance of the NFC form, one profile, echoed as stored (NFC)', async () => {
    const tenant = await createTenant(t);
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: NFD });
    expect(address.external_ref).toBe(NFC);
    await simulateAddress(t, tenant.key, address.id, '7');
    for (const path of [`/balances/${q(NFC)}`, `/balances/${q(NFD)}`, `/balances?external_ref=${q(NFD)}`]) {
      const res = await t.call(tenant.key, 'GET', path);
      expect(res.statusCode, res.body).toBe(200);
      const view = json<{ external_ref: string; balances: { asset: string; amount: string }[] }>(res);
      expect(view.external_ref).toBe(NFC);
      expect(view.balances.find((b) => b.asset === 'USDC')?.amount, path).toBe('7');
    }
    await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: NFC });
    expect(await countRows(t, 'SELECT 1 FROM profiles WHERE organization_id = $1', [tenant.organizationId])).toBe(1);
    const listed = json<{ data: unknown[] }>(await t.call(tenant.key, 'GET', `/addresses?external_ref=${q(NFD)}`));
    expect(listed.data).toHaveLength(2);
  });

  it('fullwidth and Cyrillic lookalikes are text, accepted as end users of their own', async () => {
    const tenant = await createTenant(t);
    for (const ref of ['user-42', '\uff55ser-42', 'us\u0435r-42']) await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: ref });
    expect(await countRows(t, 'SELECT 1 FROM profiles WHERE organization_id = $1', [tenant.organizationId])).toBe(3);
  });

  it('the rule counts code points of the NFC form: 255 astral characters pass, and so does a decomposed text that composes to 255', () => {
    expect([...externalRef('😀'.repeat(255))]).toHaveLength(255);
    expect(externalRef('e\u0301'.repeat(255))).toBe('\u00e9'.repeat(255));
  });
});

describe('escaped identifiers (what the dashboard and the check show)', () => {
  it('lookalikes escape differently, and the escape reverses', () => {
    const refs = ['user-42', 'user-42\u200b', 'user-\u202e24', '\uff55ser-42', 'us\u0435r-42', 'user-42 ', 'a\\u{41}'];
    const escaped = refs.map(escapeIdentifier);
    expect(new Set(escaped).size).toBe(refs.length);
    expect(escaped.every((e) => /^[\x20-\x7e]+$/.test(e))).toBe(true);
    expect(escaped.map(unescapeIdentifier)).toEqual(refs);
    expect(escapeIdentifier('user-42\u200b')).toBe('user-42\\u{200B}');
  });
});
