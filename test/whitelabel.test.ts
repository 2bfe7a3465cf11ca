import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import {
  countRows,
  createAddress,
  createIntent,
  createTenant,
  extraKey,
  json,
  listAddresses,
  listIntents,
  postAddress,
  postIntent,
  type AddressObject,
  type IntentEnvelope,
} from './support/partner.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const profileCount = (externalRef: string) => countRows(t, 'SELECT 1 FROM profiles WHERE external_ref = $1', [externalRef]);
const profilesOf = (organizationId: string) =>
  t.db.query<{ id: string; mode: string; external_ref: string }>(
    'SELECT id, mode, external_ref FROM profiles WHERE organization_id = $1 ORDER BY mode',
    [organizationId],
  );
const intentProfile = async (id: string) =>
  (await t.db.query<{ profile_id: string | null }>('SELECT profile_id FROM payment_intents WHERE id = $1', [id]))[0]!.profile_id;
const addressProfile = async (id: string) =>
  (await t.db.query<{ profile_id: string | null }>('SELECT profile_id FROM deposit_addresses WHERE id = $1', [id]))[0]!.profile_id;
/** A fresh external_ref per test: profiles are counted across the whole database. */
const newRef = () => `user-${randomUUID()}`;

describe('whitelabel profiles', () => {
  it('an external_ref gets its profile on first use, not before', async () => {
    const { key, organizationId } = await createTenant(t);
    const ref = newRef();
    expect(await profileCount(ref)).toBe(0);
    const intent = await createIntent(t, key, { external_ref: ref });
    const profiles = await profilesOf(organizationId);
    expect(profiles).toEqual([{ id: expect.any(String), mode: 'test', external_ref: ref }]);
    expect(await intentProfile(intent.id)).toBe(profiles[0]!.id);
  });

  it('later intents with the same external_ref reach the same profile', async () => {
    const { key } = await createTenant(t);
    const ref = newRef();
    const first = await createIntent(t, key, { external_ref: ref });
    const second = await createIntent(t, key, { external_ref: ref, currencies: ['USDT'] });
    expect(await profileCount(ref)).toBe(1);
    expect(await intentProfile(second.id)).toBe(await intentProfile(first.id));
  });

  it('intents and addresses with the same external_ref reach the same profile', async () => {
    const { key } = await createTenant(t);
    const ref = newRef();
    const address = await createAddress(t, key, { external_ref: ref });
    const intent = await createIntent(t, key, { external_ref: ref });
    const another = await createAddress(t, key, { external_ref: ref, asset: 'USDT', network: 'tron' });
    expect(await profileCount(ref)).toBe(1);
    const profile = await intentProfile(intent.id);
    expect(profile).not.toBeNull();
    expect(await addressProfile(address.id)).toBe(profile);
    expect(await addressProfile(another.id)).toBe(profile);
    const intentAddresses = await t.db.query<{ profile_id: string | null }>(
      'SELECT profile_id FROM deposit_addresses WHERE payment_intent_id = $1',
      [intent.id],
    );
    expect(intentAddresses.length).toBeGreaterThan(0);
    for (const row of intentAddresses) expect(row.profile_id).toBe(profile);
  });

  it('the same external_ref in another organization is a different profile', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const ref = newRef();
    const ia = await createIntent(t, a.key, { external_ref: ref });
    const ib = await createIntent(t, b.key, { external_ref: ref });
    expect(await profileCount(ref)).toBe(2);
    expect(await intentProfile(ia.id)).not.toBe(await intentProfile(ib.id));
    expect((await listIntents(t, b.key, `?external_ref=${encodeURIComponent(ref)}`)).data.map((i) => i.id)).toEqual([ib.id]);
  });

  it('the same external_ref in the other mode is a different profile', async () => {
    const { key, organizationId } = await createTenant(t);
    const liveKey = await extraKey(t, organizationId, 'live');
    const ref = newRef();
    // Live custody is not configured, so a live profile cannot be made through the API: it is written directly.
    const liveProfile = randomUUID();
    await t.db.query("INSERT INTO profiles (id, organization_id, mode, external_ref) VALUES ($1, $2, 'live', $3)", [
      liveProfile,
      organizationId,
      ref,
    ]);
    const intent = await createIntent(t, key, { external_ref: ref });
    const profiles = await profilesOf(organizationId);
    expect(profiles.map((p) => p.mode)).toEqual(['live', 'test']);
    const sandboxProfile = profiles.find((p) => p.mode === 'test')!.id;
    expect(sandboxProfile).not.toBe(liveProfile);
    expect(await intentProfile(intent.id)).toBe(sandboxProfile);
    expect((await listIntents(t, liveKey, `?external_ref=${encodeURIComponent(ref)}`)).data).toEqual([]);
  });

  it('the direct flow (no external_ref) creates no profile', async () => {
    const { key, organizationId } = await createTenant(t);
    const intent = await createIntent(t, key);
    const address = await createAddress(t, key);
    expect(await profilesOf(organizationId)).toEqual([]);
    expect(await intentProfile(intent.id)).toBeNull();
    expect(await addressProfile(address.id)).toBeNull();
  });

  it('one key can use both flows', async () => {
    const { key } = await createTenant(t);
    const ref = newRef();
    const direct = await createIntent(t, key);
    const white = await createIntent(t, key, { external_ref: ref });
    const treasury = await createAddress(t, key);
    const personal = await createAddress(t, key, { external_ref: ref });
    expect(direct.external_ref).toBeNull();
    expect(white.external_ref).toBe(ref);
    expect('external_ref' in treasury).toBe(false);
    expect(personal.external_ref).toBe(ref);
    expect(new Set((await listIntents(t, key)).data.map((i) => i.id))).toEqual(new Set([direct.id, white.id]));
    expect((await listIntents(t, key, `?external_ref=${encodeURIComponent(ref)}`)).data.map((i) => i.id)).toEqual([white.id]);
    expect(new Set((await listAddresses(t, key)).data.map((a) => a.id))).toEqual(new Set([treasury.id, personal.id]));
    expect((await listAddresses(t, key, `?external_ref=${encodeURIComponent(ref)}`)).data.map((a) => a.id)).toEqual([personal.id]);
  });

  it('20 concurrent first uses of one new external_ref create exactly one profile', async () => {
    const { key } = await createTenant(t);
    const ref = newRef();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => postIntent(t, key, { amount: '10', currencies: ['USDC'], external_ref: ref }, randomUUID())),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(await profileCount(ref)).toBe(1);
    const ids = responses.map((r) => json<IntentEnvelope>(r).id);
    expect(new Set(ids).size).toBe(20);
    const profiles = new Set(await Promise.all(ids.map(intentProfile)));
    expect(profiles.size).toBe(1);
  });

  it('20 concurrent first uses mixing intents and addresses create exactly one profile', async () => {
    const { key } = await createTenant(t);
    const ref = newRef();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? postIntent(t, key, { amount: '10', currencies: ['USDC'], external_ref: ref })
          : postAddress(t, key, { asset: 'USDC', network: 'solana', external_ref: ref }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(await profileCount(ref)).toBe(1);
    const owners = await Promise.all(
      responses.map((r, i) => (i % 2 === 0 ? intentProfile(json<IntentEnvelope>(r).id) : addressProfile(json<AddressObject>(r).id))),
    );
    expect(new Set(owners).size).toBe(1);
  });
});
