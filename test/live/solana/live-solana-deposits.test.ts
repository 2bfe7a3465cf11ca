import { findAssociatedTokenPda, getTransferInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { address, generateKeyPairSigner, getAddressDecoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../../src/domain/clock.js';
import type { Database } from '../../../src/store/database.js';
import { ManualClock } from '../../support/clock.js';
import { rpcSolanaReader } from '../../../src/providers/chains/solana/solana-rpc.js';
import { SolanaWatcher } from '../../../src/workers/solana-watcher.js';
import { ADMIN_TOKEN, startTestApp, type Tenant, type TestApp } from '../../support/app.js';
import { parseExposition, valueOf } from '../../support/metrics.js';
import { createAddress, createIntent, createTenant, errorOf, getIntent, json, postAddress, type TransactionObject } from '../../support/partner.js';
import { solanaRpcWorld, USDC_MINT, USDT_MINT } from '../../support/solana/rpc-world.js';

const POOL_LOW = 3;
const path = (i: number) => `m/44'/501'/${i}'/0'`;

let world: Awaited<ReturnType<typeof solanaRpcWorld>>;
let t: TestApp;
let live: Tenant;
const warnings: { fields: Record<string, unknown>; message: string }[] = [];

/** A watcher as the worker builds one; a new one is what a restarted process runs. */
const watcher = (options: { db?: Database; clock?: Clock } = {}) =>
  new SolanaWatcher(
    options.db ?? t.db,
    rpcSolanaReader(world.url, 5_000),
    t.ctx.catalog,
    options.clock ?? systemClock,
    async () => ({ snapshot: await t.ctx.prices.current(), maxAgeSeconds: t.ctx.config.pricesMaxAgeSeconds }),
    { network: 'solana', watchHoursAfterExpiry: 72, poolLowThreshold: POOL_LOW, maxCallsPerTick: 1000, idleHours: 24, idlePollSeconds: 600 },
    { warn: (fields: Record<string, unknown>, message: string) => void warnings.push({ fields, message }), error: () => {} } as never,
    t.ctx.metrics,
  );

async function importKeys(keys: { owner: string; derivation_path: string }[]) {
  return t.admin('POST', '/solana/owner-keys', { network: 'solana', keys });
}

async function freshOwners(count: number, from: number): Promise<{ owner: string; derivation_path: string }[]> {
  return Promise.all(Array.from({ length: count }, async (_, i) => ({ owner: (await generateKeyPairSigner()).address, derivation_path: path(from + i) })));
}

async function transactionsOf(signature: string): Promise<TransactionObject[]> {
  const res = await t.call(live.key, 'GET', '/transactions');
  return json<{ data: TransactionObject[] }>(res).data.filter((tx) => tx.tx_hash === signature);
}

beforeAll(async () => {
  world = await solanaRpcWorld();
  t = await startTestApp({ solana: { rpcUrls: { solana: world.url }, pollSeconds: 1, poolLowThreshold: POOL_LOW, watchHoursAfterExpiry: 72, rpcTimeoutMs: 5_000, signer: null, payoutMaxSignings: 3, payoutExpiryConfirmSeconds: 0, maxCallsPerTick: 1000, idleHours: 24, idlePollSeconds: 600 } });
  live = await createTenant(t, { mode: 'live' });
  expect((await importKeys(await freshOwners(40, 0))).statusCode).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await world?.close();
});

describe('the owner pool: operator import', () => {
  it('importing keys again is harmless: nothing new, nothing changed; a key given twice in one request counts once', async () => {
    const keys = await freshOwners(2, 100);
    const first = await importKeys([...keys, keys[0]!]);
    expect(first.statusCode, first.body).toBe(200);
    expect(json(first)).toMatchObject({ object: 'solana_owner_import', network: 'solana', received: 2, imported: 2 });
    expect(json(await importKeys(keys))).toMatchObject({ received: 2, imported: 0 });
  });

  it('an invalid entry refuses the whole import, naming each problem: bad base58, wrong length, off the curve, not a hardened path', async () => {
    const [good] = await freshOwners(1, 200);
    const thirtyOneBytes = getAddressDecoder().decode(new Uint8Array(32)).slice(0, -2);
    const offCurve = (await findAssociatedTokenPda({ owner: address(good!.owner), mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
    const res = await importKeys([
      good!,
      { owner: '0OIl-not-base58', derivation_path: path(1) },
      { owner: thirtyOneBytes, derivation_path: path(2) },
      { owner: offCurve, derivation_path: path(3) },
      { owner: (await freshOwners(1, 4))[0]!.owner, derivation_path: "m/44/501/4/0" },
    ]);
    expect(res.statusCode).toBe(400);
    const error = errorOf(res);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'keys' });
    for (const problem of ['keys[1].owner', 'keys[2].owner', 'keys[3].owner: ' + offCurve + ' is off the ed25519 curve', 'keys[4].derivation_path']) {
      expect(error.message).toContain(problem);
    }
    const [row] = await t.db.query('SELECT 1 FROM solana_deposit_owners WHERE owner = $1', [good!.owner]);
    expect(row).toBeUndefined();
  });

  it('a network that is not Solana is refused; the route needs the operator token', async () => {
    const [key] = await freshOwners(1, 300);
    expect(errorOf(await t.admin('POST', '/solana/owner-keys', { network: 'ethereum', keys: [key] }))).toMatchObject({ code: 'invalid_request', param: 'network' });
    const anonymous = await t.app.inject({ method: 'POST', url: '/admin/v1/solana/owner-keys', payload: { network: 'solana', keys: [key] } });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('live Solana deposit addresses', () => {
  it('a live key is offered Solana once its watcher is configured; each pair of an intent gets its own owner from the pool, taken for good', async () => {
    const intent = await createIntent(t, live.key, { amount: '10', currencies: ['USDC', 'USDT'] });
    const solana = intent.addresses.filter((a) => a.network === 'solana');
    expect(solana.map((a) => a.asset).sort()).toEqual(['USDC', 'USDT']);
    const owners = await t.db.query<{ owner: string; derivation_path: string; allocated_at: Date | null }>(
      'SELECT owner, derivation_path, allocated_at FROM solana_deposit_owners WHERE owner = ANY($1::text[])',
      [solana.map((a) => a.address)],
    );
    expect(owners).toHaveLength(2);
    expect(owners.every((o) => o.allocated_at !== null && /^m\/44'\/501'\/\d+'\/0'$/.test(o.derivation_path))).toBe(true);
  });

  it('intents created concurrently never share an owner', async () => {
    const intents = await Promise.all(Array.from({ length: 8 }, () => createIntent(t, live.key, { amount: '10', currencies: ['USDC'] })));
    const owners = intents.flatMap((i) => i.addresses.filter((a) => a.network === 'solana').map((a) => a.address));
    expect(owners).toHaveLength(8);
    expect(new Set(owners).size).toBe(8);
  });
});

describe('the Solana watcher credits finalized transfers to our owners', () => {
  it("a USDC TransferChecked to the owner's token account (created by the payer) is credited once; more ticks, a restarted watcher and a lost cursor credit it no more", async () => {
    await watcher().tick();
    const intent = await createIntent(t, live.key, { amount: '10', currencies: ['USDC'] });
    const owner = intent.addresses.find((a) => a.network === 'solana')!.address;
    const { signature, failed } = await world.payToken(owner, USDC_MINT, 4_000_000n);
    expect(failed).toBe(false);

    expect(await watcher().tick()).toBe(1);
    expect(await transactionsOf(signature)).toMatchObject([{ status: 'confirmed', asset: 'USDC', network: 'solana', amount: '4', payment_intent_id: intent.id }]);
    expect(await getIntent(t, live.key, intent.id)).toMatchObject({ amount_received: 4, partial_payment: true });

    const same = watcher();
    expect(await same.tick()).toBe(0);
    expect(await watcher().tick()).toBe(0);
    // A crash between reading and recording leaves the cursor where it was: the same signatures are read again.
    await t.db.query('DELETE FROM solana_signature_cursors');
    expect(await watcher().tick()).toBe(0);
    expect(await transactionsOf(signature)).toHaveLength(1);
    const rows = await t.db.query<{ output_index: number }>('SELECT output_index FROM chain_deposits WHERE tx_hash = $1', [signature]);
    // The TransferChecked is the second top-level instruction, after the account creation and its 4 inner instructions.
    expect(rows).toHaveLength(1);
    expect(rows[0]!.output_index).toBeGreaterThan(1);
  });

  it('a plain Transfer (not TransferChecked) into the token account is credited too; two watchers ticking at once credit it once', async () => {
    const { address: owner } = await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    await world.payToken(owner, USDC_MINT, 1_000_000n);
    const { signature, failed } = await world.send([
      getTransferInstruction({ source: await world.tokenAccountOf(world.payer.address, USDC_MINT), destination: await world.tokenAccountOf(address(owner), USDC_MINT), authority: world.payer, amount: 2_500_000n }),
    ]);
    expect(failed).toBe(false);
    const credited = await Promise.all([watcher().tick(), watcher().tick()]);
    expect(credited[0]! + credited[1]!).toBe(2);
    expect(await transactionsOf(signature)).toMatchObject([{ status: 'confirmed', amount: '2.5' }]);
  });

  it('a watcher killed inside its recording transaction commits nothing; the next one reads the same signatures and credits once', async () => {
    const { address: owner } = await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    const { signature } = await world.payToken(owner, USDC_MINT, 3_000_000n);
    const killed: Database = { ...t.db, transaction: (work) => t.db.transaction(async (tx) => { await work(tx); throw new Error('killed mid-transaction'); }) };
    await expect(watcher({ db: killed }).tick()).rejects.toThrow('killed mid-transaction');
    expect(await transactionsOf(signature)).toEqual([]);
    expect(await watcher().tick()).toBe(1);
    expect(await watcher().tick()).toBe(0);
    expect(await transactionsOf(signature)).toMatchObject([{ status: 'confirmed', amount: '3' }]);
  });

  it('an address whose intent expired more than CONNECT_SOLANA_WATCH_HOURS ago is no longer read', async () => {
    const intent = await createIntent(t, live.key, { amount: '10', currencies: ['USDC'] });
    const owner = intent.addresses.find((a) => a.network === 'solana')!.address;
    const { signature } = await world.payToken(owner, USDC_MINT, 1_000_000n);
    const later = new ManualClock(new Date(Date.parse(intent.expires_at) + 73 * 3_600_000));
    expect(await watcher({ clock: later }).tick()).toBe(0);
    expect(await transactionsOf(signature)).toEqual([]);
    expect(await watcher().tick()).toBe(1);
  });

  it('a failed transaction credits nothing', async () => {
    const address = await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    const { signature, failed } = await world.payToken(address.address, USDC_MINT, 10n ** 15n);
    expect(failed).toBe(true);
    expect(await watcher().tick()).toBe(0);
    expect(await transactionsOf(signature)).toEqual([]);
  });

  it('another mint (USDT to a USDC address) or SOL to a token address is not credited, and is logged', async () => {
    const address = await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    warnings.length = 0;
    const usdt = await world.payToken(address.address, USDT_MINT, 5_000_000n);
    const sol = await world.paySol(address.address, 1_000_000n);
    expect(await watcher().tick()).toBe(0);
    expect(await transactionsOf(usdt.signature)).toEqual([]);
    expect(await transactionsOf(sol.signature)).toEqual([]);
    const logged = warnings.filter((w) => w.message.includes('another asset')).map((w) => [w.fields.signature, w.fields.asset]);
    expect(logged).toEqual(expect.arrayContaining([[usdt.signature, 'USDT'], [sol.signature, 'SOL']]));
  });

  it('a native SOL transfer to a SOL address is credited in SOL', async () => {
    const address = await createAddress(t, live.key, { asset: 'SOL', network: 'solana' });
    const { signature } = await world.paySol(address.address, 250_000_000n);
    expect(await watcher().tick()).toBe(1);
    expect(await transactionsOf(signature)).toMatchObject([{ status: 'confirmed', asset: 'SOL', amount: '0.25' }]);
  });
});

describe('the JSON-RPC reader', () => {
  it("a node's failure is reported without the endpoint's URL (it holds the provider's API key)", async () => {
    const reader = rpcSolanaReader('http://user:rpc-password@127.0.0.1:9/rpc-path-key?api-key=rpc-query-key', 2_000);
    const error = (await reader.signaturesSince(USDC_MINT, null).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^Solana getSignaturesForAddress: /);
    for (const secret of ['rpc-password', 'rpc-path-key', 'rpc-query-key']) expect(error.message).not.toContain(secret);
  });
});

describe('the pool running low, then empty', () => {
  it('below the threshold the watcher warns, /readyz and the gauge show the count; an empty pool refuses new addresses with provider_unavailable naming the import', async () => {
    const free = (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM solana_deposit_owners WHERE allocated_at IS NULL"))[0]!.n;
    for (let i = 0; i < free - 1; i++) await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    warnings.length = 0;
    await watcher().tick();
    expect(warnings.filter((w) => w.message.includes('owner pool low'))).toEqual([expect.objectContaining({ fields: { network: 'solana', free: 1, threshold: POOL_LOW } })]);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(json<{ live: unknown }>(ready).live).toMatchObject({ networks: { solana: 'http://127.0.0.1:' + new URL(world.url).port }, solana_owner_pools: { solana: { free: 1, low: true } } });

    await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    const metrics = await t.app.inject({ method: 'GET', url: '/admin/v1/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(valueOf(parseExposition(metrics.body), 'connect_solana_deposit_owners_free', { network: 'solana' })).toBe(0);
    const refused = await postAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    expect(refused.statusCode).toBe(503);
    expect(errorOf(refused)).toMatchObject({ code: 'provider_unavailable' });
    expect(errorOf(refused).message).toContain('connect-payments solana import-owners');
  });
});
