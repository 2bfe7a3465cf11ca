import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import { recordAbsence, recordLanded, recordSigned } from '../../../src/store/expiring-payouts.js';
import { searchObjects } from '../../../src/store/search.js';
import { newLease } from '../../../src/store/payout-leases.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { PayoutObject } from '../../support/evm/live-payouts.js';
import { HOT_WALLET, tronPayoutKit, useTronPayoutWorld, USDT } from '../../support/tron/live-payouts.js';

/*
 * Live Tron payouts through the Payouts use case, the expiring-payout engine and the Tron driver, against a fake
 * node speaking java-tron's HTTP API (test/support/tron/fake-node.ts) that checks every signature with TronWeb.
 */
const world = useTronPayoutWorld();
const { fundedTenant, pay, statusOf, sweep, sweepUntilExpired, reaches, freshDestination, available, lastError, recorded } = tronPayoutKit(world);
const CONFIRMATIONS = 20;

beforeAll(() => {
  world.node.mintToken(USDT, HOT_WALLET, 10n ** 15n);
  world.node.setTrx(HOT_WALLET, 10n ** 15n);
});

beforeEach(() => {
  Object.assign(world.node, { dropBroadcasts: false, refuseBroadcasts: null, executionPenaltyPercent: 0n, energyFeeSun: 100n });
  world.node.loseNext.clear();
});

const units = (amount: string) => BigInt(new Decimal(amount).times(1_000_000).toFixed(0));
/** Blocks enough for the catalog's confirmations past the final head, then a sweep: what settles a landed payout. */
async function finalize() {
  world.node.mine(CONFIRMATIONS + 1);
  await sweep();
}

async function expectPaidOnce(key: string, payout: PayoutObject, destination: string, token: string | null = USDT) {
  const done = await statusOf(key, payout.id);
  expect(done.status).toBe('completed');
  const transfers = world.node.transfersTo(destination);
  expect(transfers).toHaveLength(1);
  expect(transfers[0]!.txId).toBe(done.tx_hash);
  const received = token ? world.node.tokenBalance(token, destination) : world.node.trxBalance(destination);
  expect(received).toBe(units(done.quote.recipient_gets));
  expect((await verifyLedger(world.t.db)).ok).toBe(true);
}

describe('the quote prices a first transfer to an address', () => {
  const feeUsd = async (key: string, asset: string, destination: string) => {
    const res = await world.t.call(key, 'POST', '/payouts/quote', { body: { asset, amount: '5', destination, network_hint: 'tron' }, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    return new Decimal(res.json().fee_total_usd);
  };
  // The price table's TRX, in USD: what the surcharge, in TRX, is converted at.
  const trxUsd = async () => new Decimal((await world.t.ctx.prices.current())!.usd.TRX!);

  // What the chain charges for a TRC-20 transfer, in TRX: energy and 400 bytes of bandwidth at the node's prices, plus 10 %.
  const chainTrx = (energy: bigint, energyFeeSun: bigint) => new Decimal(((energy * energyFeeSun + 400n * 1_000n) * 110n / 100n).toString()).div(1_000_000);

  it('USDT to an address holding none costs 65,000 more energy than to a holder: charged then, at the energy price and TRX price', async () => {
    const tenant = await fundedTenant('100');
    const holder = freshDestination();
    world.node.mintToken(USDT, holder, 1n);
    const toHolder = await feeUsd(tenant.key, 'USDT', holder);
    const toNew = await feeUsd(tenant.key, 'USDT', freshDestination());
    expect(toHolder.toFixed()).toBe('3');
    expect(toNew.minus(toHolder).toFixed()).toBe(new Decimal('6.5').times(await trxUsd()).toFixed());
  });

  it('energy dearer than the fee table assumed (the energy price, or TRX\'s, rose): the quote charges what the chain asks now, and the payout goes out', async () => {
    const tenant = await fundedTenant('100');
    const holder = freshDestination();
    world.node.mintToken(USDT, holder, 1n);
    world.node.energyFeeSun = 420n;
    expect((await feeUsd(tenant.key, 'USDT', holder)).toFixed()).toBe(chainTrx(65_000n, 420n).times(await trxUsd()).toFixed());
    const payout = await pay(tenant.key, holder, '10');
    await reaches(tenant.key, payout.id, 'processing');
    await finalize();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('completed');
    expect(world.node.transfersTo(holder)).toHaveLength(1);
  });

  it('TRX to an address never activated carries its activation fee; to an active one, nothing more', async () => {
    const tenant = await fundedTenant('100', 'TRX');
    const active = freshDestination();
    world.node.setTrx(active, 1n);
    const toActive = await feeUsd(tenant.key, 'TRX', active);
    const toNew = await feeUsd(tenant.key, 'TRX', freshDestination());
    expect(toNew.gt(toActive)).toBe(true);
  });

  it('a node that does not answer the lookup refuses the quote 503: nothing could be sent', async () => {
    const tenant = await fundedTenant('100');
    world.node.decide = (path) => (path === '/wallet/triggerconstantcontract' ? 'drop-request' : 'pass');
    try {
      const res = await world.t.call(tenant.key, 'POST', '/payouts/quote', {
        body: { asset: 'USDT', amount: '5', destination: freshDestination(), network_hint: 'tron' },
        idempotencyKey: randomUUID(),
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toMatchObject({ code: 'provider_unavailable', message: expect.stringMatching(/^The Tron node could not price this payout/) });
    } finally {
      world.node.decide = () => 'pass';
    }
  });
});

describe('a live Tron payout goes out once and completes at finality', () => {
  it('USDT: signed, recorded, broadcast (processing with its transaction id), landed but not final stays processing, final with the confirmations completes', async () => {
    const tenant = await fundedTenant('100');
    const destination = freshDestination();
    const payout = await pay(tenant.key, destination, '10');
    await reaches(tenant.key, payout.id, 'processing');
    const [sent] = await recorded(payout.id);
    expect(sent).toMatchObject({ status: 'broadcast', signing: 1, tx_id: (await statusOf(tenant.key, payout.id)).tx_hash });
    // Signed by the hot wallet (the node checked it with TronWeb), priced within the quote, expiring after the head.
    const tx = world.node.pool.get(sent!.tx_id)!;
    expect(tx.feeLimit).toBeGreaterThanOrEqual(130_000n * 100n);

    world.node.solidLag = 19;
    world.node.mine(1);
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    world.node.mine(19);
    await sweep();
    // Final now, but short of the catalog's confirmations past the final head.
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    world.node.solidLag = 0;
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
  });

  it('TRX: a native transfer to an address never activated, its activation fee within the quote', async () => {
    const tenant = await fundedTenant('50', 'TRX');
    const destination = freshDestination();
    const payout = await pay(tenant.key, destination, '5', 'TRX');
    await reaches(tenant.key, payout.id, 'processing');
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination, null);
  });
});

describe('a hot wallet short of the asset', () => {
  it('a payout the hot wallet cannot pay waits, pending with its reason and nothing signed, and goes out once the hot wallet is funded', async () => {
    const tenant = await fundedTenant('50', 'TRX');
    const held = world.node.trxBalance(HOT_WALLET);
    world.node.setTrx(HOT_WALLET, units('1'));
    try {
      const destination = freshDestination();
      const payout = await pay(tenant.key, destination, '5', 'TRX');
      const waiting = 'waiting for funds: the hot wallet holds 1 TRX on tron and this payout sends 5; it goes out once the hot wallet holds enough (a sweep of deposit addresses, or a top-up)';
      await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toBe(waiting);
      await sweep();
      expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
      expect(await recorded(payout.id)).toEqual([]);

      world.node.setTrx(HOT_WALLET, held);
      await sweep();
      await reaches(tenant.key, payout.id, 'processing');
      await finalize();
      await expectPaidOnce(tenant.key, payout, destination, null);
    } finally {
      world.node.setTrx(HOT_WALLET, held);
    }
  });
});

describe('a hot wallet short of the TRX that pays the fee', () => {
  it('a USDT payout whose energy the hot wallet cannot burn waits, nothing signed, saying what the fee needs; it goes out once funded', async () => {
    const tenant = await fundedTenant('50');
    const held = world.node.trxBalance(HOT_WALLET);
    world.node.setTrx(HOT_WALLET, units('1'));
    try {
      const payout = await pay(tenant.key, freshDestination(), '5');
      await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toMatch(/^waiting for funds: the hot wallet holds 1 TRX on tron and this payout needs up to \d+(\.\d+)? TRX with its network fee; /);
      expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
      expect(await recorded(payout.id)).toEqual([]);
      world.node.setTrx(HOT_WALLET, held);
      await sweep();
      await reaches(tenant.key, payout.id, 'processing');
    } finally {
      world.node.setTrx(HOT_WALLET, held);
    }
  });
});

describe('a transaction that landed final and failed releases the funds', () => {
  it('out of energy (execution took more than its fee_limit allowed): failed, funds back, nothing received', async () => {
    const tenant = await fundedTenant('100');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    world.node.executionPenaltyPercent = 1_000n;
    const payout = await pay(tenant.key, destination, '10');
    await reaches(tenant.key, payout.id, 'processing');
    await finalize();
    const done = await statusOf(tenant.key, payout.id);
    expect(done).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/failed on chain/) });
    expect(await available(tenant.organizationId)).toBe(before);
    expect(world.node.tokenBalance(USDT, destination)).toBe(0n);
  });
});

describe('refused before anything is signed', () => {
  it('energy now costs more than the quote charged (its price rose after the quote): failed at once (nothing_signed), nothing recorded, funds back', async () => {
    const tenant = await fundedTenant('100');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    world.node.mintToken(USDT, destination, 1n);
    const quote = await world.t.call(tenant.key, 'POST', '/payouts/quote', { body: { asset: 'USDT', amount: '10', destination, network_hint: 'tron' }, idempotencyKey: randomUUID() });
    expect(quote.statusCode, quote.body).toBe(201);
    world.node.energyFeeSun = 10_000n;
    const executed = await world.t.call(tenant.key, 'POST', '/payouts', { body: { quote_id: quote.json().quote_id }, idempotencyKey: randomUUID() });
    expect(executed.statusCode, executed.body).toBe(201);
    const payout = executed.json<PayoutObject>();
    await reaches(tenant.key, payout.id, 'failed');
    expect((await statusOf(tenant.key, payout.id)).failure_reason).toMatch(/above what the quote charged/);
    expect(await recorded(payout.id)).toEqual([]);
    expect(await available(tenant.organizationId)).toBe(before);
  });
});

describe('a transaction that never lands', () => {
  it('stays open (never released) until the solidified time passes its expiration, then a fresh one is signed, lands, and completes: one transfer', async () => {
    const tenant = await fundedTenant('100');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    world.node.dropBroadcasts = true;
    const payout = await pay(tenant.key, destination, '10');
    await reaches(tenant.key, payout.id, 'processing');
    const first = (await statusOf(tenant.key, payout.id)).tx_hash!;
    const { expiration } = world.node.taken.get(first)!;
    world.node.mine(5);
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    expect(await available(tenant.organizationId)).not.toBe(before);
    expect(await recorded(payout.id)).toEqual([expect.objectContaining({ tx_id: first, status: 'broadcast' })]);

    world.node.dropBroadcasts = false;
    world.node.mineUntilSolidAt(expiration);
    // One sighting past the deadline is not proof: a later attempt must see it again.
    await sweep();
    expect(await recorded(payout.id)).toEqual([expect.objectContaining({ tx_id: first, status: 'broadcast' })]);
    expect(await lastError(payout.id)).toMatch(/believed once a later attempt/);
    await sweep();
    const second = await statusOf(tenant.key, payout.id);
    expect(second.status).toBe('processing');
    expect(second.tx_hash).not.toBe(first);
    expect(await recorded(payout.id)).toEqual([
      expect.objectContaining({ tx_id: first, status: 'expired', signing: 1 }),
      expect.objectContaining({ tx_id: second.tx_hash, status: 'broadcast', signing: 2 }),
    ]);
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
    // The operator's search finds the payout by the id of its expired transaction too.
    expect(await searchObjects(world.t.db, first)).toEqual([expect.objectContaining({ kind: 'payout', id: payout.id })]);
    // The operator's view lists both, with the deadline that proved the first dead.
    const view = await world.t.admin('GET', `/payouts/${payout.id}`);
    expect(view.json()).toMatchObject({
      chain: null,
      signed_transactions: [
        { tx_hash: first, signing: 1, status: 'expired', deadline: { kind: 'expiration_ms', value: String(expiration) } },
        { tx_hash: second.tx_hash, signing: 2, status: 'broadcast', deadline: { kind: 'expiration_ms' } },
      ],
    });
  });

  it(`fails with proof 'expired' after its last signing expired unlanded, funds back, nothing received`, async () => {
    const tenant = await fundedTenant('100');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    world.node.dropBroadcasts = true;
    const payout = await pay(tenant.key, destination, '10');
    await reaches(tenant.key, payout.id, 'processing');
    for (let signing = 1; signing <= 3; signing++) {
      const current = (await recorded(payout.id)).at(-1)!;
      expect(current.signing).toBe(signing);
      world.node.mineUntilSolidAt(world.node.solid.timestamp + 61_000);
      await sweepUntilExpired([payout.id]);
    }
    const done = await statusOf(tenant.key, payout.id);
    expect(done).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/3 transaction\(s\) expired unlanded/) });
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'expired', 'expired']);
    expect(await available(tenant.organizationId)).toBe(before);
    expect(world.node.transfersTo(destination)).toEqual([]);
  });
});

describe('what the node answers to a broadcast', () => {
  it('a lost answer (the node took it) leaves the payout open, then the lookup finds it landed: completed, one transfer', async () => {
    const tenant = await fundedTenant('100');
    const destination = freshDestination();
    world.node.loseNext.add('/wallet/broadcasthex');
    const payout = await pay(tenant.key, destination, '10');
    await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toMatch(/no answer to the broadcast/);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    world.node.mine(1);
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
  });

  it('a refusal (BANDWITH_ERROR) proves nothing: open until expired, then signed again; once the node takes it, one transfer', async () => {
    const tenant = await fundedTenant('100');
    const destination = freshDestination();
    world.node.refuseBroadcasts = { code: 'BANDWITH_ERROR', message: Buffer.from('account resource insufficient error.').toString('hex') };
    const payout = await pay(tenant.key, destination, '10');
    await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toMatch(/refused .*BANDWITH_ERROR: account resource insufficient error/);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    world.node.refuseBroadcasts = null;
    world.node.mineUntilSolidAt(world.node.solid.timestamp + 61_000);
    await sweepUntilExpired([payout.id]);
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
  });
});

describe('cancellation by the operator', () => {
  it('ends not_sent only once what was signed has expired, and nothing is signed after the request', async () => {
    const tenant = await fundedTenant('100');
    const before = await available(tenant.organizationId);
    world.node.dropBroadcasts = true;
    const payout = await pay(tenant.key, freshDestination(), '10');
    await reaches(tenant.key, payout.id, 'processing');
    expect((await world.t.admin('POST', `/payouts/${payout.id}/cancel`)).statusCode).toBeLessThan(300);
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    expect(await lastError(payout.id)).toMatch(/can still land until its deadline/);
    world.node.mineUntilSolidAt(world.node.solid.timestamp + 61_000);
    await sweepUntilExpired([payout.id]);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('failed');
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired']);
    expect(await available(tenant.organizationId)).toBe(before);
  });
});

describe('the store', () => {
  it('refuses a second transaction of a payout while one is open, and one recorded at a signing already taken', async () => {
    const tenant = await fundedTenant('100');
    world.node.dropBroadcasts = true;
    const payout = await pay(tenant.key, freshDestination(), '10');
    await reaches(tenant.key, payout.id, 'processing');
    const [{ token }] = (await world.t.db.query<{ token: string }>("UPDATE payouts SET lease_token = gen_random_uuid() WHERE id = $1 RETURNING lease_token::text AS token", [payout.id])) as [{ token: string }];
    const lease = { ...newLease(payout.id, new Date(), 60), token };
    const other = { txId: 'ff'.repeat(32), raw: '00', deadline: { kind: 'expiration_ms', at: 1n } } as const;
    expect(await recordSigned(world.t.db, lease, 'tron', { ...other, signing: 2 })).toBe(false);
    expect(await recordSigned(world.t.db, lease, 'tron', { ...other, signing: 1 })).toBe(false);
    // Past the store's own check, the database refuses it.
    await expect(
      world.t.db.query("INSERT INTO expiring_payout_txs (payout_id, network, signing, tx_id, raw, deadline_kind, deadline) VALUES ($1, 'tron', 2, $2, '00', 'expiration_ms', 1)", [payout.id, other.txId]),
    ).rejects.toThrow();
    await world.t.db.query('UPDATE payouts SET lease_token = NULL WHERE id = $1', [payout.id]);
  });

  it('records a transaction expired only on a second sighting at least the delay after the first, and never one a node once showed landed', async () => {
    const tenant = await fundedTenant('100');
    world.node.dropBroadcasts = true;
    const payouts = [await pay(tenant.key, freshDestination(), '10'), await pay(tenant.key, freshDestination(), '10')];
    for (const payout of payouts) await reaches(tenant.key, payout.id, 'processing');
    const leaseOf = async (payoutId: string) => {
      const [{ token }] = (await world.t.db.query<{ token: string }>('UPDATE payouts SET lease_token = gen_random_uuid() WHERE id = $1 RETURNING lease_token::text AS token', [payoutId])) as [{ token: string }];
      return { ...newLease(payoutId, new Date(), 60), token };
    };
    const [waited, landed] = await Promise.all(payouts.map(async (p) => ({ lease: await leaseOf(p.id), txId: (await recorded(p.id))[0]!.tx_id })));
    const hour = 3_600;
    expect(await recordAbsence(world.t.db, waited!.lease, waited!.txId, 5n, hour)).toBe('first');
    expect(await recordAbsence(world.t.db, waited!.lease, waited!.txId, 6n, hour)).toBe('waiting');
    expect((await recorded(payouts[0]!.id))[0]!.status).toBe('broadcast');
    expect(await recordAbsence(world.t.db, waited!.lease, waited!.txId, 7n, 0)).toBe('expired');
    expect((await recorded(payouts[0]!.id))[0]!.status).toBe('expired');

    await recordLanded(world.t.db, landed!.txId);
    expect(await recordAbsence(world.t.db, landed!.lease, landed!.txId, 5n, 0)).toBe('landed');
    expect(await recordAbsence(world.t.db, landed!.lease, landed!.txId, 6n, 0)).toBe('landed');
    expect((await recorded(payouts[1]!.id))[0]!.status).toBe('broadcast');
    // Past the store's own check, the database refuses it.
    await expect(world.t.db.query("UPDATE expiring_payout_txs SET status = 'expired', expired_at = now() WHERE tx_id = $1", [landed!.txId])).rejects.toThrow();
    await world.t.db.query('UPDATE payouts SET lease_token = NULL WHERE id = ANY($1::uuid[])', [payouts.map((p) => p.id)]);
  });
});
