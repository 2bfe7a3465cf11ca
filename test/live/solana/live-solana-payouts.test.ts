import { randomUUID } from 'node:crypto';
import { address, lamports } from '@solana/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import { MAX_MICRO_LAMPORTS_PER_COMPUTE_UNIT, priorityPrice, SolanaDriver } from '../../../src/providers/chains/solana/payout-driver.js';
import { TOKEN_ACCOUNT_RENT_LAMPORTS } from '../../../src/providers/chains/solana/spl-payout-fee.js';
import { solanaSigner } from '../../../src/providers/chains/solana/signer.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { PayoutObject } from '../../support/evm/live-payouts.js';
import { json } from '../../support/partner.js';
import { USDC_MINT, USDT_MINT } from '../../support/solana/rpc-world.js';
import { freshWallet, keygenFile, recordedTxs, useSolanaPayoutWorld } from '../../support/solana/live-payouts.js';
import { tronPayoutKit } from '../../support/tron/live-payouts.js';

/*
 * Live Solana payouts through the Payouts use case, the expiring-payout engine and the Solana driver, wired as the
 * server wires them, against litesvm (the real System, SPL Token and Associated Token programs) behind a JSON-RPC
 * test server whose block heights the tests advance (test/support/solana/payout-chain.ts).
 */
const world = useSolanaPayoutWorld();
const { fundedTenant, pay, statusOf, sweep, sweepUntilExpired, reaches, available, lastError } = tronPayoutKit(world, 'solana');
/** The catalog's confirmations on Solana, counted from the finalized slot. */
const CONFIRMATIONS = 32;
const SIGNATURE_FEE = 5_000n;

beforeEach(() => {
  Object.assign(world.chain.chain, { send: 'take', finalityLag: 0n, priorityFees: [], forgetful: false });
  world.solUsd = null;
});

const units = (amount: string, decimals = 6) => BigInt(new Decimal(amount).times(new Decimal(10).pow(decimals)).toFixed(0));
const recorded = (payoutId: string) => recordedTxs(world, payoutId);

/** Blocks enough for the transaction to land and have the catalog's confirmations past the finalized slot, then a sweep. */
async function finalize() {
  world.chain.chain.mine(CONFIRMATIONS + 1);
  await sweep();
}

async function expectPaidOnce(key: string, payout: PayoutObject, destination: string, mint = USDC_MINT) {
  const done = await statusOf(key, payout.id);
  expect(done.status).toBe('completed');
  expect(world.chain.chain.landed(done.tx_hash!)).toMatchObject({ err: null });
  expect(await world.chain.chain.tokenBalance(address(destination), mint)).toBe(units(done.quote.recipient_gets));
  expect((await verifyLedger(world.t.db)).ok).toBe(true);
  return done;
}

describe('a live USDC payout on Solana goes out once and completes at finalized', () => {
  it('to an existing token account: signed, recorded, broadcast (processing with its signature), landed but not finalized stays processing, finalized with the confirmations completes; the hot wallet pays the signature fee only', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const destination = await freshWallet();
    await world.chain.payToken(destination, USDC_MINT, 0n);
    const lamportsBefore = world.chain.chain.lamports(world.hotWallet);
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await reaches(tenant.key, payout.id, 'processing');
    const [sent] = await recorded(payout.id);
    expect(sent).toMatchObject({ status: 'broadcast', signing: 1, tx_id: (await statusOf(tenant.key, payout.id)).tx_hash });
    expect(BigInt(sent!.deadline)).toBe(world.chain.chain.height + 150n);

    world.chain.chain.finalityLag = 40n;
    world.chain.chain.mine(1);
    await sweep();
    expect(world.chain.chain.landed(sent!.tx_id)).toMatchObject({ err: null });
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    world.chain.chain.finalityLag = 0n;
    world.chain.chain.mine(CONFIRMATIONS - 2);
    await sweep();
    // Finalized now, one slot short of the catalog's confirmations past the finalized slot.
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    await finalize();
    const done = await expectPaidOnce(tenant.key, payout, destination);
    expect(done.tx_hash).toBe(sent!.tx_id);
    expect(lamportsBefore - world.chain.chain.lamports(world.hotWallet)).toBe(SIGNATURE_FEE);
  });

  it('to a wallet without a token account: the payout creates it (owned by the recipient), its rent paid by the hot wallet and within what the quote charged', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const destination = await freshWallet();
    const lamportsBefore = world.chain.chain.lamports(world.hotWallet);
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await reaches(tenant.key, payout.id, 'processing');
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
    expect(lamportsBefore - world.chain.chain.lamports(world.hotWallet)).toBe(SIGNATURE_FEE + TOKEN_ACCOUNT_RENT_LAMPORTS);
  });

  it('bids the 75th percentile of the recent priority fees on the accounts it writes, bounded, on a 40,000-unit limit: what the hot wallet pays', async () => {
    expect(priorityPrice([])).toBe(0n);
    expect(priorityPrice([1n, 2n, 3n, 4n])).toBe(3n);
    expect(priorityPrice([10n ** 12n])).toBe(MAX_MICRO_LAMPORTS_PER_COMPUTE_UNIT);
    world.chain.chain.priorityFees = [100n, 4_000n, 2_000n, 1_000n, 3_000n, 0n, 5_000n, 6_000n];
    const tenant = await fundedTenant('100', 'USDC');
    const destination = await freshWallet();
    await world.chain.payToken(destination, USDC_MINT, 0n);
    const lamportsBefore = world.chain.chain.lamports(world.hotWallet);
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await reaches(tenant.key, payout.id, 'processing');
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
    // The 6th of the 8 fees sorted (nearest rank): 4,000 µlamports a unit × 40,000 units = 160 lamports.
    expect(lamportsBefore - world.chain.chain.lamports(world.hotWallet)).toBe(SIGNATURE_FEE + 160n);
  });
});

describe('the quote', () => {
  it("charges the table's fee, plus the token account's rent at the SOL price only when the destination has no token account (a node that does not answer: the rent)", async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const quote = async (destination: string) => {
      const res = await world.t.call(tenant.key, 'POST', '/payouts/quote', {
        body: { asset: 'USDC', amount: '10', destination, network_hint: 'solana' },
        idempotencyKey: randomUUID(),
      });
      expect(res.statusCode, res.body).toBe(201);
      return json<{ fee_total_usd: string; user_sends: string }>(res);
    };
    const holder = await freshWallet();
    await world.chain.payToken(holder, USDC_MINT, 0n);
    expect(await quote(holder)).toMatchObject({ fee_total_usd: '0.01', user_sends: '10.01' });
    // 2,039,280 lamports at $150 a SOL: $0.305892.
    expect(await quote(await freshWallet())).toMatchObject({ fee_total_usd: '0.315892', user_sends: '10.315892' });
    const driver = new SolanaDriver(world.t.ctx.catalog, new Map([['solana', 'http://127.0.0.1:9/']]), await solanaSigner((await keygenFile()).json), 1_000);
    expect(await driver.accountCreationCost('solana', 'USDC', holder)).toBe('0.00203928');
    expect(await driver.accountCreationCost('solana', 'SOL', holder)).toBe('0');
  });
});

describe('SOL payouts', () => {
  it('a System transfer to a wallet that has no account yet (the amount above the rent-exempt minimum) lands and completes', async () => {
    const tenant = await fundedTenant('5', 'SOL');
    const destination = await freshWallet();
    const payout = await pay(tenant.key, destination, '0.5', 'SOL');
    await reaches(tenant.key, payout.id, 'processing');
    await finalize();
    const done = await statusOf(tenant.key, payout.id);
    expect(done.status).toBe('completed');
    expect(world.chain.chain.lamports(destination)).toBe(units('0.5', 9));
    expect((await verifyLedger(world.t.db)).ok).toBe(true);
  });

  it('an amount below the rent-exempt minimum to a wallet without an account is refused before signing: the runtime would refuse it', async () => {
    const key = await keygenFile();
    const driver = new SolanaDriver(world.t.ctx.catalog, new Map([['solana', world.chain.url]]), await solanaSigner(key.json), 2_000);
    const transfer = { asset: 'SOL', network: 'solana', destination: await freshWallet(), amount: '0.0005' };
    expect(await driver.sign(transfer, '0.01')).toEqual({
      refused: expect.stringMatching(/has no account yet, and a transfer creating one must send at least 890880 lamports/),
    });
  });
});

describe('refused before anything is signed', () => {
  it('a fee above what the quote charged (a priority fee at its bound, SOL dear): failed at once (nothing_signed), nothing recorded or sent, funds back', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const before = await available(tenant.organizationId, 'USDC');
    const destination = await freshWallet();
    await world.chain.payToken(destination, USDC_MINT, 0n);
    const sent = world.chain.chain.received.length;
    world.solUsd = '1000';
    world.chain.chain.priorityFees = [2_000_000n];
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await reaches(tenant.key, payout.id, 'failed');
    // 5,000 + 1,000,000 µlamports (the bound) × 40,000 units; the quote's $0.01 is 10,000 lamports at $1,000 a SOL.
    expect((await statusOf(tenant.key, payout.id)).failure_reason).toMatch(/\(45000 lamports\) is above what the quote charged \(10000 lamports\)/);
    expect(await recorded(payout.id)).toEqual([]);
    expect(world.chain.chain.received.length).toBe(sent);
    expect(await available(tenant.organizationId, 'USDC')).toBe(before);
  });
});

describe('a transaction that never lands', () => {
  it('stays processing (funds reserved) until the FINALIZED height passes its lastValidBlockHeight — not the head — then a fresh one is signed, lands and completes: one landed', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const before = await available(tenant.organizationId, 'USDC');
    const destination = await freshWallet();
    const { chain } = world.chain;
    chain.send = 'drop';
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await reaches(tenant.key, payout.id, 'processing');
    const [first] = await recorded(payout.id);
    const deadline = BigInt(first!.deadline);

    // The head passes the deadline, the finalized height does not yet: still open, nothing new signed.
    chain.finalityLag = 10n;
    while (chain.height <= deadline + 5n) chain.mine();
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    expect(await available(tenant.organizationId, 'USDC')).not.toBe(before);
    expect(await recorded(payout.id)).toEqual([expect.objectContaining({ tx_id: first!.tx_id, status: 'broadcast' })]);
    chain.finalityLag = 0n;
    chain.mine(1);
    expect(chain.finalized).toBeGreaterThan(deadline);

    chain.send = 'take';
    // One sighting past the deadline is not proof: a later attempt must see it again.
    await sweep();
    expect(await recorded(payout.id)).toEqual([expect.objectContaining({ tx_id: first!.tx_id, status: 'broadcast' })]);
    expect(await lastError(payout.id)).toMatch(/believed once a later attempt/);
    await sweep();
    const second = await statusOf(tenant.key, payout.id);
    expect(second.tx_hash).not.toBe(first!.tx_id);
    expect(await recorded(payout.id)).toEqual([
      expect.objectContaining({ tx_id: first!.tx_id, status: 'expired', signing: 1 }),
      expect.objectContaining({ tx_id: second.tx_hash, status: 'broadcast', signing: 2 }),
    ]);
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
    expect(chain.landed(first!.tx_id)).toBeNull();
  });

  it(`fails with proof 'expired' once its last signing (CONNECT_SOLANA_PAYOUT_MAX_SIGNINGS, 3) expired unlanded: funds back, nothing received`, async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const before = await available(tenant.organizationId, 'USDC');
    const destination = await freshWallet();
    const { chain } = world.chain;
    chain.send = 'drop';
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await reaches(tenant.key, payout.id, 'processing');
    for (let signing = 1; signing <= 3; signing++) {
      const current = (await recorded(payout.id)).at(-1)!;
      expect(current.signing).toBe(signing);
      chain.mineUntilFinalizedAbove(BigInt(current.deadline));
      await sweepUntilExpired([payout.id]);
    }
    const done = await statusOf(tenant.key, payout.id);
    expect(done).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/3 transaction\(s\) expired unlanded/) });
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'expired', 'expired']);
    expect(await available(tenant.organizationId, 'USDC')).toBe(before);
    expect(await chain.tokenBalance(destination, USDC_MINT)).toBe(0n);
  });

  it('an open transaction is never followed by another while the finalized height has not passed its deadline, even sent again and again', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const { chain } = world.chain;
    chain.send = 'drop';
    const payout = await pay(tenant.key, await freshWallet(), '10', 'USDC');
    await reaches(tenant.key, payout.id, 'processing');
    const [first] = await recorded(payout.id);
    chain.mineUntilFinalizedAbove(BigInt(first!.deadline) - 1n);
    expect(chain.finalized).toBe(BigInt(first!.deadline));
    await sweep();
    await sweep();
    expect(await recorded(payout.id)).toEqual([expect.objectContaining({ tx_id: first!.tx_id, status: 'broadcast' })]);
    expect(chain.received.filter((s) => s === first!.tx_id).length).toBeGreaterThanOrEqual(3);
    chain.mine(1);
    await sweepUntilExpired([payout.id]);
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
  });
});

describe('a hot wallet short of the asset', () => {
  it('a payout the hot wallet cannot pay waits, pending with its reason and nothing signed, and goes out once the hot wallet is funded', async () => {
    const tenant = await fundedTenant('100', 'USDT');
    const destination = await freshWallet();
    const payout = await pay(tenant.key, destination, '10', 'USDT');
    const waiting = 'waiting for funds: the hot wallet holds 5 USDT on solana and this payout sends 10; it goes out once the hot wallet holds enough (a sweep of deposit addresses, or a top-up)';
    await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toBe(waiting);
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    expect(await recorded(payout.id)).toEqual([]);

    await world.chain.payToken(world.hotWallet, USDT_MINT, units('5'));
    await sweep();
    await reaches(tenant.key, payout.id, 'processing');
    await finalize();
    await reaches(tenant.key, payout.id, 'completed');
    expect(await world.chain.chain.tokenBalance(address(destination), USDT_MINT)).toBe(units('10'));
    expect((await verifyLedger(world.t.db)).ok).toBe(true);
  });

  it('a USDC payout whose fee the hot wallet\'s SOL cannot pay waits, nothing signed, saying what the fee needs; it goes out once the hot wallet has SOL again', async () => {
    const { svm } = world.chain;
    const hotAccount = svm.getAccount(address(world.hotWallet));
    if (!hotAccount.exists) throw new Error('the hot wallet has no account');
    const setLamports = (amount: bigint) => svm.setAccount({ ...hotAccount, address: address(world.hotWallet), lamports: lamports(amount) });
    const tenant = await fundedTenant('100', 'USDC');
    setLamports(1_000n);
    try {
      const payout = await pay(tenant.key, await freshWallet(), '10', 'USDC');
      await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toMatch(/^waiting for funds: the hot wallet holds 0\.000001 SOL on solana and this payout needs up to 0\.\d+ SOL with its network fee; /);
      expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
      expect(await recorded(payout.id)).toEqual([]);
      setLamports(hotAccount.lamports);
      await sweep();
      await reaches(tenant.key, payout.id, 'processing');
    } finally {
      setLamports(hotAccount.lamports);
    }
  });

  it('two payouts the hot wallet could each pay but not both: the second lands failed, stays processing until finalized, then fails (reverted) with the funds back, nothing received', async () => {
    await world.chain.payToken(world.hotWallet, USDT_MINT, units('5'));
    const tenant = await fundedTenant('100', 'USDT');
    const [first, second] = [await freshWallet(), await freshWallet()];
    // The first is signed and sent, not landed yet: the hot wallet still shows 5 when the second is signed.
    const paid = await pay(tenant.key, first, '4', 'USDT');
    await reaches(tenant.key, paid.id, 'processing');
    const before = await available(tenant.organizationId, 'USDT');
    const payout = await pay(tenant.key, second, '4', 'USDT');
    await reaches(tenant.key, payout.id, 'processing');
    const { chain } = world.chain;
    chain.finalityLag = 40n;
    chain.mine(1);
    await sweep();
    const txHash = (await statusOf(tenant.key, payout.id)).tx_hash!;
    expect(chain.landed(txHash)?.err).toMatch(/InsufficientFunds|insufficient funds|0x1/i);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    chain.finalityLag = 0n;
    await finalize();
    const done = await statusOf(tenant.key, payout.id);
    expect(done).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/failed on chain/) });
    expect((await statusOf(tenant.key, paid.id)).status).toBe('completed');
    expect(await available(tenant.organizationId, 'USDT')).toBe(before);
    expect(await chain.tokenBalance(address(second), USDT_MINT)).toBe(0n);
    expect((await verifyLedger(world.t.db)).ok).toBe(true);
  });
});

describe('what the node answers to a broadcast', () => {
  it('a lost answer (the node took it) leaves the payout pending (unknown), then the lookup finds it landed: completed, one transfer', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const destination = await freshWallet();
    world.chain.chain.send = 'lose';
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toMatch(/no answer to the broadcast/);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    expect(await lastError(payout.id)).not.toContain(world.chain.url);
    world.chain.chain.send = 'take';
    world.chain.chain.mine(1);
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
  });

  it('"already processed" (a landed transaction sent again to a node whose lookup missed it) counts as taken: processing, then completed once the lookup finds it', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const destination = await freshWallet();
    const { chain } = world.chain;
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await reaches(tenant.key, payout.id, 'processing');
    chain.mine(1);
    chain.forgetful = true;
    const sent = chain.received.length;
    await sweep();
    expect(chain.received.length).toBe(sent + 1);
    expect(await lastError(payout.id)).toBeNull();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    chain.forgetful = false;
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
  });

  it('a refusal proves nothing: open until its deadline passed, then signed again; once the node takes it, one transfer', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const destination = await freshWallet();
    const { chain } = world.chain;
    chain.send = 'refuse';
    const payout = await pay(tenant.key, destination, '10', 'USDC');
    await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toMatch(/refused .*JSON-RPC error -32005/);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    const [first] = await recorded(payout.id);
    chain.mineUntilFinalizedAbove(BigInt(first!.deadline));
    chain.send = 'take';
    await sweepUntilExpired([payout.id]);
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
    await finalize();
    await expectPaidOnce(tenant.key, payout, destination);
  });
});
