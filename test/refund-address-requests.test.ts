import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RefundAddressRequest } from '../src/http/resources/refund-address-request.js';
import { requestLogFields } from '../src/logging.js';
import { submittedRefundAddress } from '../src/store/refund-address-requests.js';
import { startTestApp, withManualClock, type Tenant, type TestApp } from './support/app.js';
import { createIntent, createTenant, errorOf, json, listPage, simulate, type IntentEnvelope } from './support/partner.js';
import { untilFirst429 } from './support/rate-limit.js';

type RequestObject = Static<typeof RefundAddressRequest>;

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ pagesRequestsPerSecond: 100_000 });
  tenant = await createTenant(t);
});
afterAll(() => t.close());

// Addresses whose checksums are right, one per format, and the same with one character changed.
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const SOLANA = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BITCOIN = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

const postRequest = (app: TestApp, key: string, intentId: string, body: Record<string, unknown> = {}, idempotencyKey = randomUUID()) =>
  app.call(key, 'POST', `/payment-intents/${intentId}/refund-address-requests`, { body, idempotencyKey });

async function createRequest(app: TestApp, key: string, intentId: string, body: Record<string, unknown> = {}): Promise<RequestObject> {
  const res = await postRequest(app, key, intentId, body);
  expect(res.statusCode, res.body).toBe(201);
  return json<RequestObject>(res);
}

/** An intent that received 2 USDC on Ethereum and 3 USDT on Tron (partially paid, so still open). */
async function paidIntent(app: TestApp = t, key = tenant.key): Promise<IntentEnvelope> {
  const intent = await createIntent(app, key, { amount: '100', currencies: ['USDC', 'USDT', 'BTC'] });
  await simulate(app, key, intent.id, { amount: '2', currency: 'USDC', network: 'ethereum' });
  return simulate(app, key, intent.id, { amount: '3', currency: 'USDT', network: 'tron' });
}

const linkPath = (url: string) => new URL(url).pathname;
const page = (app: TestApp, path: string, headers: Record<string, string> = {}) => app.app.inject({ method: 'GET', url: path, headers });
const post = (app: TestApp, path: string, fields: Record<string, string>) =>
  app.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
const review = (path: string, pair: string, address: string, app = t) => post(app, `${path}/review`, { pair, address });
const submit = (path: string, pair: string, address: string, app = t) => post(app, `${path}/submit`, { pair, address });
const problemOf = (res: LightMyRequestResponse) => /<p class="problem" id="problem" role="alert">([^<]+)<\/p>/.exec(res.body)?.[1];
const NOT_VALID = 'This refund link is unknown or no longer valid.';
/** The address a received page shows as recorded; undefined on any other page. */
const receivedAddress = (res: LightMyRequestResponse) =>
  /<h1>(?:Refund address received|Dirección de reembolso recibida)<\/h1>[\s\S]*<code class="address" id="address">([^<]+)<\/code>/.exec(res.body)?.[1];

describe('POST /payment-intents/{id}/refund-address-requests', () => {
  it('answers 201 with the single-use link, the pairs the money came on, open, nothing chosen yet, valid 7 days by default', async () => {
    const intent = await paidIntent();
    const created = await createRequest(t, tenant.key, intent.id);
    expect(created).toMatchObject({
      object: 'refund_address_request',
      payment_intent_id: intent.id,
      status: 'open',
      networks: [
        { asset: 'USDC', network: 'ethereum' },
        { asset: 'USDT', network: 'tron' },
      ],
      asset: null,
      network: null,
      address: null,
      submitted_at: null,
    });
    expect(created.url).toMatch(new RegExp(`^${t.ctx.config.publicUrl}/pay/refund/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(7 * 24 * 3600 * 1000);
  });

  it('shows the link only once: GET answers the request with url null, and the token is stored only as a hash', async () => {
    const created = await createRequest(t, tenant.key, (await paidIntent()).id);
    const read = await t.call(tenant.key, 'GET', `/refund-address-requests/${created.id}`);
    expect(read.statusCode).toBe(200);
    expect(json<RequestObject>(read)).toEqual({ ...created, url: null });
    const token = linkPath(created.url!).split('/').pop()!;
    const [row] = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM refund_address_requests WHERE id = $1', [created.id]);
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.token_hash).not.toContain(token);
  });

  it('replays the same answer for the same Idempotency-Key with the link withheld (url null, Idempotent-Replay-Withheld: url), and makes one request', async () => {
    const intent = await paidIntent();
    const key = randomUUID();
    const first = await postRequest(t, tenant.key, intent.id, {}, key);
    expect(first.headers['idempotent-replay-withheld']).toBeUndefined();
    const again = await postRequest(t, tenant.key, intent.id, {}, key);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.headers['idempotent-replay-withheld']]).toEqual([201, 'true', 'url']);
    expect(json(again)).toEqual({ ...json<RequestObject>(first), url: null });
    const [count] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM refund_address_requests WHERE payment_intent_id = $1', [intent.id]);
    expect(count!.n).toBe(1);
  });

  it('needs an Idempotency-Key (IDEM)', async () => {
    const intent = await paidIntent();
    const res = await t.call(tenant.key, 'POST', `/payment-intents/${intent.id}/refund-address-requests`, { body: {} });
    expect(errorOf(res).code).toBe('idempotency_key_required');
  });

  it('refuses an intent that received nothing: 400 invalid_request (nothing to refund)', async () => {
    const intent = await createIntent(t, tenant.key);
    const res = await postRequest(t, tenant.key, intent.id);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'payment_intent_id' });
  });

  it("another tenant's intent is 404 like a missing one; a malformed id is 400 invalid_payment_intent_id", async () => {
    const intent = await paidIntent();
    const other = await createTenant(t);
    const theirs = await postRequest(t, other.key, intent.id);
    const missing = await postRequest(t, other.key, randomUUID());
    expect(theirs.statusCode).toBe(404);
    expect(errorOf(theirs)).toEqual(errorOf(missing));
    expect(errorOf(await postRequest(t, tenant.key, 'not-a-uuid')).code).toBe('invalid_payment_intent_id');
  });

  it('takes expires_in_seconds between 15 minutes and 30 days; outside that is a 400 naming it (a value out of range)', async () => {
    const intent = await paidIntent();
    const created = await createRequest(t, tenant.key, intent.id, { expires_in_seconds: 3600 });
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(3600 * 1000);
    for (const seconds of [899, 30 * 24 * 3600 + 1]) {
      const res = await postRequest(t, tenant.key, intent.id, { expires_in_seconds: seconds });
      expect(res.statusCode).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'expires_in_seconds' });
    }
  });
});

describe('GET /refund-address-requests/{id}', () => {
  it("another tenant's request is 404 exactly as a missing or malformed id, to read and to cancel", async () => {
    const created = await createRequest(t, tenant.key, (await paidIntent()).id);
    const other = await createTenant(t);
    const theirs = await t.call(other.key, 'GET', `/refund-address-requests/${created.id}`);
    const missing = await t.call(other.key, 'GET', `/refund-address-requests/${randomUUID()}`);
    const malformed = await t.call(other.key, 'GET', '/refund-address-requests/nope');
    expect(theirs.statusCode).toBe(404);
    expect(errorOf(theirs)).toEqual(errorOf(missing));
    expect(errorOf(malformed)).toEqual(errorOf(missing));
    const cancelTheirs = await t.call(other.key, 'POST', `/refund-address-requests/${created.id}/cancel`, { idempotencyKey: randomUUID() });
    expect(cancelTheirs.statusCode).toBe(404);
    expect(errorOf(cancelTheirs)).toEqual(errorOf(missing));
    expect(json<RequestObject>(await t.call(tenant.key, 'GET', `/refund-address-requests/${created.id}`)).status).toBe('open');
  });
});

describe('the hosted refund page: GET /pay/refund/{token}', () => {
  let link: string;
  let intent: IntentEnvelope;
  beforeAll(async () => {
    intent = await paidIntent();
    link = linkPath((await createRequest(t, tenant.key, intent.id)).url!);
  });

  it('shows the reference, what came in on each pair, the pairs to choose from and the exchange warning, under the pages\' headers', async () => {
    const res = await page(t, link);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<strong>${intent.ref_code}</strong>`);
    expect(res.body).toContain('<li>2 USDC on Ethereum</li>');
    expect(res.body).toContain('<li>3 USDT on Tron</li>');
    expect(res.body).toContain('value="USDC/ethereum"');
    expect(res.body).toContain('value="USDT/tron"');
    expect(res.body).toContain('Use the address of a wallet you control.');
    expect(res.body).toContain('An exchange deposit address may not credit a refund');
    expect(res.headers['content-security-policy']).toContain("form-action 'self'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // A plain form: works without script, and no cookie is set or needed.
    expect(res.body).toMatch(/<form class="refund-form" method="post" action="\/pay\/refund\/[A-Za-z0-9_-]{43}\/review\?lang=en">/);
    expect(res.body).not.toContain('<script');
    expect(res.headers['set-cookie']).toBeUndefined();
    // Labels for every control (the browser test runs axe on it).
    expect(res.body).toContain('<legend>Network for the refund</legend>');
    expect(res.body).toContain('<label class="field-label" for="address">');
  });

  it('speaks Spanish by Accept-Language, with the warning translated, and links to the other language', async () => {
    const res = await page(t, link, { 'accept-language': 'es-PE' });
    expect(res.headers['content-language']).toBe('es');
    expect(res.body).toContain('Usa la dirección de una billetera que controles.');
    expect(res.body).toContain('<li>2 USDC en Ethereum</li>');
    expect(res.body).toContain(`href="${link}?lang=en"`);
  });

  it('one neutral "link not valid" page, 404, for unknown and malformed tokens', async () => {
    const unknown = await page(t, `/pay/refund/${'A'.repeat(43)}`);
    const malformed = await page(t, '/pay/refund/short');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain(NOT_VALID);
    expect(malformed.statusCode).toBe(404);
    expect(malformed.body).toContain(NOT_VALID);
  });

  it("counts against the payment page's per-address rate limit; past it, a person gets the HTML 429 page, the submission included", async () => {
    const limited = await startTestApp({ pagesRequestsPerSecond: 3 }, t.testDb);
    try {
      const from = (remoteAddress: string) =>
        limited.app.inject({ method: 'POST', url: `${link}/submit`, remoteAddress, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'pair=USDT%2Ftron&address=x' });
      const refused = (await untilFirst429(() => from('203.0.113.20'))).at(-1)!;
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toContain('<h1>Too many requests</h1>');
    } finally {
      await limited.close();
    }
  });

  it('logs the link without its token: the token is the capability to give the refund address', () => {
    const fields = requestLogFields({ method: 'GET', url: `${link}/review?lang=es`, host: 'h', ip: '127.0.0.1', headers: {} });
    expect(fields.url).toBe('/pay/refund/[redacted]/review?lang=es');
  });
});

describe('the payer submits an address: review, then submit, once', () => {
  it('refuses addresses that fail the network codec, checksums included, with a message on the page and the typed text kept', async () => {
    const link = linkPath((await createRequest(t, tenant.key, (await paidIntent()).id)).url!);
    const cases: [string, string, string][] = [
      ['USDC/ethereum', EVM.slice(0, -1) + 'e', 'This is not a valid Ethereum address.'], // mixed case, wrong EIP-55 checksum
      ['USDC/ethereum', EVM.toLowerCase(), 'exactly as your wallet shows it'], // no checksum at all
      ['USDT/tron', TRON.slice(0, -1) + 'u', 'This is not a valid Tron address.'], // base58check fails
      ['USDT/tron', EVM, 'This is not a valid Tron address.'], // another network's address
      ['USDC/ethereum', '', 'This is not a valid Ethereum address.'],
    ];
    for (const [pair, address, message] of cases) {
      const res = await review(link, pair, address);
      expect(res.statusCode, address).toBe(422);
      expect(problemOf(res), address).toContain(message);
      expect(res.body).toContain(`value="${address}"`);
      expect(res.body).toContain('aria-invalid="true" aria-describedby="problem"');
    }
    const noPair = await review(link, 'BTC/bitcoin', BITCOIN);
    expect(noPair.statusCode).toBe(422);
    expect(problemOf(noPair)).toBe('Choose the network for the refund.');
  });

  it('checks Solana (32-byte base58) and Bitcoin (bech32 checksum) addresses with their codecs too', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '100', currencies: ['USDC', 'BTC'] });
    await simulate(t, tenant.key, intent.id, { amount: '1', currency: 'USDC', network: 'solana' });
    await simulate(t, tenant.key, intent.id, { amount: '0.0001', currency: 'BTC', network: 'bitcoin' });
    const link = linkPath((await createRequest(t, tenant.key, intent.id)).url!);
    // Solana has no checksum: a key of 31 bytes (two characters dropped) is what the codec can refuse.
    expect(problemOf(await review(link, 'USDC/solana', SOLANA.slice(0, -2)))).toContain('not a valid Solana address');
    expect(problemOf(await review(link, 'BTC/bitcoin', BITCOIN.slice(0, -1) + 'p'))).toContain('not a valid Bitcoin address');
    expect((await review(link, 'USDC/solana', SOLANA)).statusCode).toBe(200);
    expect((await review(link, 'BTC/bitcoin', BITCOIN)).statusCode).toBe(200);
  });

  it('warns, on the form and the review, that a Solana address has no checksum (a typo can be a valid wrong key); says nothing of the kind where a checksum catches typos', async () => {
    const NO_CHECKSUM = 'A Solana address has no checksum: with one character wrong it can still be a valid address';
    const onSolana = await createIntent(t, tenant.key, { amount: '100', currencies: ['USDC'] });
    await simulate(t, tenant.key, onSolana.id, { amount: '1', currency: 'USDC', network: 'solana' });
    const solanaLink = linkPath((await createRequest(t, tenant.key, onSolana.id)).url!);
    expect((await page(t, solanaLink)).body).toContain(NO_CHECKSUM);
    const reviewed = await review(solanaLink, 'USDC/solana', SOLANA);
    expect(reviewed.statusCode).toBe(200);
    expect(reviewed.body).toContain(NO_CHECKSUM);

    const elsewhere = linkPath((await createRequest(t, tenant.key, (await paidIntent()).id)).url!);
    expect((await page(t, elsewhere)).body).not.toContain('has no checksum');
    for (const [pair, address] of [['USDT/tron', TRON], ['USDC/ethereum', EVM]] as const) {
      expect((await review(elsewhere, pair, address)).body).not.toContain('has no checksum');
    }
  });

  it('the review shows the address back to confirm or change, and records nothing', async () => {
    const created = await createRequest(t, tenant.key, (await paidIntent()).id);
    const link = linkPath(created.url!);
    // Pasted text with surrounding whitespace: whitespace is never part of an address.
    const res = await review(link, 'USDT/tron', `  ${TRON}\n`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<code class="address" id="address">${TRON}</code>`);
    expect(res.body).toContain('USDT on Tron');
    expect(res.body).toContain(`<input type="hidden" name="address" value="${TRON}">`);
    expect(res.body).toContain(`formaction="${link}?lang=en"`);
    const change = await post(t, link, { pair: 'USDT/tron', address: TRON });
    expect(change.statusCode).toBe(200);
    expect(change.body).toContain(`value="${TRON}"`);
    expect(json<RequestObject>(await t.call(tenant.key, 'GET', `/refund-address-requests/${created.id}`)).status).toBe('open');
  });

  it('a submission records the address once, with one refund_address.submitted event related to the intent; the link is then used up', async () => {
    const intent = await paidIntent();
    const created = await createRequest(t, tenant.key, intent.id);
    const link = linkPath(created.url!);
    const done = await submit(link, 'USDC/ethereum', EVM);
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Refund address received');
    expect(done.body).toContain(EVM);

    const read = json<RequestObject>(await t.call(tenant.key, 'GET', `/refund-address-requests/${created.id}`));
    expect(read).toMatchObject({ status: 'submitted', asset: 'USDC', network: 'ethereum', address: EVM });
    expect(read.submitted_at).not.toBeNull();

    // Used: a second submission with another address changes nothing (the received page shows the first).
    const again = await submit(link, 'USDT/tron', TRON);
    expect(again.statusCode).toBe(200);
    expect(receivedAddress(again)).toBe(EVM);
    expect(json<RequestObject>(await t.call(tenant.key, 'GET', `/refund-address-requests/${created.id}`))).toMatchObject(read);

    const events = await listPage(t, tenant.key, '/events', `?type=refund_address.submitted&related_to=${intent.id}`);
    expect(events.data).toHaveLength(1);
    expect(events.data[0]).toMatchObject({
      type: 'refund_address.submitted',
      related_to: intent.id,
      related_to_kind: 'payment_intent',
      data: { refund_address_request_id: created.id, payment_intent_id: intent.id, asset: 'USDC', network: 'ethereum', address: EVM },
    });
  });

  it('a used link shows the address it recorded again (reload, double click on Confirm, back to the form), with no form, changing nothing', async () => {
    const intent = await paidIntent();
    const created = await createRequest(t, tenant.key, intent.id);
    const link = linkPath(created.url!);
    expect((await submit(link, 'USDT/tron', TRON)).statusCode).toBe(200);
    const recorded = json<RequestObject>(await t.call(tenant.key, 'GET', `/refund-address-requests/${created.id}`));

    const answers = {
      reload: await page(t, link),
      reloadInSpanish: await page(t, link, { 'accept-language': 'es' }),
      doubleClick: await submit(link, 'USDT/tron', TRON),
      otherAddress: await submit(link, 'USDC/ethereum', EVM),
      review: await review(link, 'USDC/ethereum', EVM),
      changeIt: await post(t, link, { pair: 'USDC/ethereum', address: EVM }),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect(res.statusCode, name).toBe(200);
      expect(receivedAddress(res), name).toBe(TRON);
      expect(res.body, name).not.toContain('<form');
      expect(res.body, name).not.toContain(EVM);
    }
    expect(answers.reload.body).toContain('Refund address received');
    expect(answers.reloadInSpanish.body).toContain('Dirección de reembolso recibida');

    expect(json<RequestObject>(await t.call(tenant.key, 'GET', `/refund-address-requests/${created.id}`))).toEqual(recorded);
    const events = await listPage(t, tenant.key, '/events', `?type=refund_address.submitted&related_to=${intent.id}`);
    expect(events.data).toHaveLength(1);
  });

  it('of concurrent submissions of one link exactly one is recorded (the row is claimed while open); every answer shows that one', async () => {
    const intent = await paidIntent();
    const link = linkPath((await createRequest(t, tenant.key, intent.id)).url!);
    // Half type another address: whichever wins, all ten pages name the same recorded one.
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? submit(link, 'USDT/tron', TRON) : submit(link, 'USDC/ethereum', EVM))));
    expect(answers.map((a) => a.statusCode)).toEqual(Array<number>(10).fill(200));
    const shown = new Set(answers.map(receivedAddress));
    expect(shown.size).toBe(1);
    const events = await listPage(t, tenant.key, '/events', `?type=refund_address.submitted&related_to=${intent.id}`);
    expect(events.data).toHaveLength(1);
    expect(events.data[0]?.data.address).toBe([...shown][0]);
  });

  it('submittedRefundAddress (what a refund quote reads) answers the submitted pair and address, for its tenant and intent only', async () => {
    const intent = await paidIntent();
    const created = await createRequest(t, tenant.key, intent.id);
    const scope = { organizationId: tenant.organizationId, mode: 'test' as const };
    expect(await submittedRefundAddress(t.db, scope, created.id, intent.id)).toBeNull(); // open: nothing yet
    await submit(linkPath(created.url!), 'USDT/tron', TRON);
    expect(await submittedRefundAddress(t.db, scope, created.id, intent.id)).toEqual({ asset: 'USDT', network: 'tron', address: TRON });
    expect(await submittedRefundAddress(t.db, scope, created.id, randomUUID())).toBeNull();
    expect(await submittedRefundAddress(t.db, { ...scope, organizationId: randomUUID() }, created.id, intent.id)).toBeNull();
    expect(await submittedRefundAddress(t.db, { ...scope, mode: 'live' }, created.id, intent.id)).toBeNull();
    expect(await submittedRefundAddress(t.db, scope, 'not-a-uuid', intent.id)).toBeNull();
  });
});

describe('cancelled and expired links', () => {
  it('POST /refund-address-requests/{id}/cancel closes the link at once; cancelling again is 409 invalid_state', async () => {
    const created = await createRequest(t, tenant.key, (await paidIntent()).id);
    const cancel = () => t.call(tenant.key, 'POST', `/refund-address-requests/${created.id}/cancel`, { idempotencyKey: randomUUID() });
    const res = await cancel();
    expect(res.statusCode).toBe(200);
    expect(json<RequestObject>(res)).toMatchObject({ status: 'cancelled', url: null });
    const dead = await page(t, linkPath(created.url!));
    expect(dead.statusCode).toBe(404);
    expect(dead.body).toContain(NOT_VALID);
    expect((await submit(linkPath(created.url!), 'USDT/tron', TRON)).statusCode).toBe(404);
    expect(errorOf(await cancel())).toMatchObject({ code: 'invalid_state' });
  });

  it('an expired link shows the same neutral page as an unknown one (no oracle); the request reads expired and cannot be cancelled', async () => {
    await withManualClock(t, async (app, clock) => {
      const own = await createTenant(app);
      const created = await createRequest(app, own.key, (await paidIntent(app, own.key)).id, { expires_in_seconds: 900 });
      const link = linkPath(created.url!);
      expect((await page(app, link)).statusCode).toBe(200);
      clock.advance(900 * 1000);
      const expired = await page(app, link);
      const unknown = await page(app, `/pay/refund/${'B'.repeat(43)}`);
      expect(expired.statusCode).toBe(404);
      expect(expired.body.replace(link, '')).toBe(unknown.body.replace(`/pay/refund/${'B'.repeat(43)}`, ''));
      expect((await submit(link, 'USDT/tron', TRON, app)).statusCode).toBe(404);
      expect(json<RequestObject>(await app.call(own.key, 'GET', `/refund-address-requests/${created.id}`)).status).toBe('expired');
      const cancel = await app.call(own.key, 'POST', `/refund-address-requests/${created.id}/cancel`, { idempotencyKey: randomUUID() });
      expect(errorOf(cancel)).toMatchObject({ code: 'invalid_state' });
    });
  });

  it('a link submitted before its expiry keeps showing the recorded address after it: only a link that expired open is dead', async () => {
    await withManualClock(t, async (app, clock) => {
      const own = await createTenant(app);
      const link = linkPath((await createRequest(app, own.key, (await paidIntent(app, own.key)).id, { expires_in_seconds: 900 })).url!);
      expect((await submit(link, 'USDT/tron', TRON, app)).statusCode).toBe(200);
      clock.advance(900 * 1000);
      const later = await page(app, link);
      expect(later.statusCode).toBe(200);
      expect(receivedAddress(later)).toBe(TRON);
    });
  });
});

describe('the page shows, per pair, what refunds took and what is left', () => {
  const refund = async (intentId: string, body: Record<string, unknown>) => {
    const quote = await t.call(tenant.key, 'POST', `/payment-intents/${intentId}/refunds/quote`, {
      body: { network_fee: 'deducted', ...body },
      idempotencyKey: randomUUID(),
    });
    expect(quote.statusCode, quote.body).toBe(201);
    const res = await t.call(tenant.key, 'POST', '/refunds', { body: { quote_id: json<{ quote_id: string }>(quote).quote_id }, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    return json<{ id: string }>(res).id;
  };
  const refundedLine = (res: LightMyRequestResponse, pair: string) => new RegExp(`<li>${pair}<span class="refunded">([^<]+)</span></li>`).exec(res.body)?.[1];

  it('a refund pending or completed counts on its pair only (form and received page alike); a failed one gives its room back', async () => {
    // Tron's sandbox network fee is 3 USDT: amounts well above it, so each refund is deducted from itself.
    const intent = await createIntent(t, tenant.key, { amount: '100', currencies: ['USDC', 'USDT'] });
    await simulate(t, tenant.key, intent.id, { amount: '2', currency: 'USDC', network: 'ethereum' });
    await simulate(t, tenant.key, intent.id, { amount: '10', currency: 'USDT', network: 'tron' });
    const created = await createRequest(t, tenant.key, intent.id);
    const link = linkPath(created.url!);
    const pending = await refund(intent.id, { asset: 'USDT', network: 'tron', amount: '4.25', destination: TRON });

    const form = await page(t, link);
    expect(refundedLine(form, '10 USDT on Tron')).toBe('4.25 USDT refunded or on its way; 5.75 USDT can still be refunded');
    expect(form.body).toContain('<li>2 USDC on Ethereum</li>');
    const spanish = await page(t, link, { 'accept-language': 'es' });
    expect(refundedLine(spanish, '10 USDT en Tron')).toBe('4.25 USDT reembolsados o en camino; aún se pueden reembolsar 5.75 USDT');

    // The payer's own address, then the rest of the pair through it: the received page follows the refunds.
    await submit(link, 'USDT/tron', TRON);
    await refund(intent.id, { asset: 'USDT', network: 'tron', amount: '5.75', refund_address_id: created.id });
    const done = await page(t, link);
    expect(receivedAddress(done)).toBe(TRON);
    expect(refundedLine(done, '10 USDT on Tron')).toBe('10 USDT refunded or on its way; 0 USDT can still be refunded');

    const failed = await t.call(tenant.key, 'POST', `/test/refunds/${pending}/simulate`, { body: { outcome: 'failed' } });
    expect(failed.statusCode, failed.body).toBe(200);
    expect(refundedLine(await page(t, link), '10 USDT on Tron')).toBe('5.75 USDT refunded or on its way; 4.25 USDT can still be refunded');
  });
});
