import { randomUUID } from 'node:crypto';
import { encodeAbiParameters, erc20Abi, keccak256, parseUnits, TransactionReceiptNotFoundError, type Address, type Hex } from 'viem';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localSigner } from '../../../src/providers/chains/evm-signer.js';
import { ChainHeights } from '../../../src/outbound/evm/heights.js';
import { EvmNonceEngine } from '../../../src/outbound/evm/nonce-engine.js';
import { ViemPayoutDriver } from '../../../src/providers/chains/evm-payout-driver.js';
import type { PayoutRequest } from '../../../src/outbound/outcomes.js';
import { recordSigned } from '../../../src/store/evm-payouts.js';
import type { Lease } from '../../../src/store/payout-leases.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { TestApp } from '../../support/app.js';
import { startAnvil, type Anvil } from '../../support/evm/anvil.js';
import { HOT_WALLET, HOT_WALLET_KEY, quiet, TEST_CONFIRMATIONS, type WatchedNetwork } from '../../support/evm/live-app.js';
import { livePayoutKit, useLivePayoutWorld } from '../../support/evm/live-payouts.js';
import { eventsInOrder } from '../../support/partner.js';


/** What a test does at a payout's step boundary (the ether drained between signing and broadcast, say); none by default. */
let atBoundary: ((boundary: string) => Promise<void>) | null = null;
const world = useLivePayoutWorld({ atPayoutBoundary: async (boundary) => atBoundary?.(boundary) });
const { fundedTenant, pay, statusOf, reaches, tokenBalance, available, lastError, freshDestination, stuckPayout, restoreMining } = livePayoutKit(world);
let anvil: Anvil;
let ethereum: WatchedNetwork;
let t: TestApp;
beforeAll(() => {
  ({ anvil, ethereum, t } = world);
});

/** The payout's lease, taken as a sweep would: what a direct call of the provider needs to record anything. */
const leaseOf = async (payoutId: string): Promise<Lease> => {
  const token = randomUUID();
  await t.db.query('UPDATE payouts SET lease_token = $2 WHERE id = $1', [payoutId, token]);
  return { payoutId, token, until: new Date(Date.now() + 60_000) };
};
const requestFor = (payoutId: string, asset: string, destination: string, amount: string): PayoutRequest => ({
  payoutId,
  organizationId: randomUUID(),
  asset,
  network: 'ethereum',
  destination,
  amount,
  feeCap: null,
  cancelRequested: false,
  lease: { payoutId, token: randomUUID(), until: new Date(Date.now() + 60_000) },
});
const sender = (url: string, rebroadcastAfterSeconds: number) => {
  const driver = new ViemPayoutDriver(t.ctx.catalog, new Map([['ethereum', url]]), localSigner(HOT_WALLET_KEY), 5_000);
  return new EvmNonceEngine(t.db, t.ctx.catalog, driver, new ChainHeights(t.db, driver), { rebroadcastAfterSeconds, gapFillAfterSeconds: 60, notSentConfirmSeconds: 0 });
};

describe('live payouts on EVM from the hot wallet', () => {
  it('a payout is signed, broadcast after commit, mined, and completes at its confirmations with its hash', async () => {
    const tenant = await fundedTenant('50');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const destination = freshDestination();
    const payout = await pay(tenant.key, destination, '10');
    expect(payout.status).toBe('pending');
    await reaches(tenant.key, payout.id, 'processing');
    expect(await tokenBalance(destination)).toBe(parseUnits('10', 6));

    expect(await t.ctx.outbound.sweep(quiet)).toBe(0);
    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.outbound.sweep(quiet)).toBe(1);
    const done = await statusOf(tenant.key, payout.id);
    expect(done.status).toBe('completed');
    const receipt = await anvil.client.getTransactionReceipt({ hash: done.tx_hash as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect((await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.completed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('concurrent payouts take consecutive nonces, none shared, none skipped', async () => {
    const tenant = await fundedTenant('60');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const before = await anvil.client.getTransactionCount({ address: HOT_WALLET });
    const payouts = await Promise.all(['1', '2', '3'].map((amount) => pay(tenant.key, freshDestination(), amount)));
    for (const p of payouts) await reaches(tenant.key, p.id, 'processing');
    const nonces = await t.db.query<{ nonce: string }>('SELECT nonce::text AS nonce FROM evm_payout_txs WHERE payout_id = ANY($1::uuid[]) ORDER BY nonce', [
      payouts.map((p) => p.id),
    ]);
    expect(nonces.map((n) => Number(n.nonce))).toEqual([before, before + 1, before + 2]);
    expect(await anvil.client.getTransactionCount({ address: HOT_WALLET })).toBe(before + 3);
  });

  it('a payout whose asset the hot wallet lacks waits, pending with its reason, its funds reserved and nothing signed; it goes out once the hot wallet holds enough', async () => {
    const tenant = await fundedTenant('20');
    const held = await anvil.client.readContract({ address: ethereum.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [HOT_WALLET] });
    // The hot wallet gives its tokens away: it cannot pay the transfer until it is funded again.
    await anvil.client.impersonateAccount({ address: HOT_WALLET });
    await anvil.client.writeContract({ account: HOT_WALLET, address: ethereum.usdc, abi: erc20Abi, functionName: 'transfer', args: [freshDestination() as Address, held], chain: null });
    await anvil.client.stopImpersonatingAccount({ address: HOT_WALLET });
    const before = await available(tenant.organizationId);
    const nonceBefore = await anvil.client.getTransactionCount({ address: HOT_WALLET });

    const destination = freshDestination();
    const payout = await pay(tenant.key, destination, '5');
    const waiting = 'waiting for funds: the hot wallet holds 0 USDC on ethereum and this payout sends 5; it goes out once the hot wallet holds enough (a sweep of deposit addresses, or a top-up)';
    await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toBe(waiting);
    await t.ctx.outbound.sweep(quiet);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    expect(await available(tenant.organizationId)).not.toBe(before);
    // Nothing signed, no nonce held: the payouts behind it are not held up.
    expect(await t.db.query('SELECT 1 FROM evm_payout_txs WHERE payout_id = $1', [payout.id])).toEqual([]);
    expect(await anvil.client.getTransactionCount({ address: HOT_WALLET })).toBe(nonceBefore);

    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '5');
    await t.ctx.outbound.sweep(quiet);
    await reaches(tenant.key, payout.id, 'processing');
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(quiet);
    await reaches(tenant.key, payout.id, 'completed');
    expect(await tokenBalance(destination)).toBe(parseUnits('5', 6));
    expect((await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.completed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});

describe('a live payout whose network fee the hot wallet cannot pay', () => {
  it('waits, pending, nothing signed, saying what the fee needs; it goes out once the hot wallet has ether again', async () => {
    const tenant = await fundedTenant('20');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '100');
    const ether = await anvil.client.getBalance({ address: HOT_WALLET });
    await anvil.client.setBalance({ address: HOT_WALLET, value: 0n });
    try {
      const payout = await pay(tenant.key, freshDestination(), '5');
      await expect.poll(() => lastError(payout.id), { timeout: 20_000 }).toMatch(/^waiting for funds: the hot wallet holds 0 ETH on ethereum and this payout needs up to 0\.\d+ ETH with its network fee; /);
      expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
      expect(await t.db.query('SELECT 1 FROM evm_payout_txs WHERE payout_id = $1', [payout.id])).toEqual([]);
      await anvil.client.setBalance({ address: HOT_WALLET, value: ether });
      await t.ctx.outbound.sweep(quiet);
      await reaches(tenant.key, payout.id, 'processing');
    } finally {
      await anvil.client.setBalance({ address: HOT_WALLET, value: ether });
    }
  });
});

describe('a live payout whose broadcast the node refuses', () => {
  it('is never failed while its signed transaction could still be mined: a cancellation at its nonce is mined first, then it fails with its funds released', async () => {
    const tenant = await fundedTenant('30');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const nonceBefore = await anvil.client.getTransactionCount({ address: HOT_WALLET });
    const before = await available(tenant.organizationId);
    // The ether leaves the hot wallet after the payout was signed (the checks before signing passed), so the node
    // refuses the signed transaction: the wallet cannot pay for its gas.
    const ether = await anvil.client.getBalance({ address: HOT_WALLET });
    atBoundary = async (boundary) => {
      if (boundary !== 'signed') return;
      atBoundary = null;
      await anvil.client.setBalance({ address: HOT_WALLET, value: 0n });
    };
    const refused = await pay(tenant.key, freshDestination(), '5');
    await expect.poll(async () => (await lastError(refused.id)) ?? '', { timeout: 20_000 }).toMatch(/insufficient funds/i);
    const reason = (await lastError(refused.id))!;
    // The node's words, never its URL (providers put API keys in it) nor the request body.
    expect(reason).not.toContain(anvil.url.replace('http://', ''));
    expect(reason).not.toMatch(/URL|Request body/);
    // Refused, but signed: still pending, its funds still reserved, its nonce still its own.
    expect((await statusOf(tenant.key, refused.id)).status).toBe('pending');
    expect(await available(tenant.organizationId)).not.toBe(before);
    const [slot] = await t.db.query<{ status: string; payout_id: string | null; current_purpose: string }>(
      "SELECT status, payout_id, current_purpose FROM evm_payout_txs WHERE network = 'ethereum' AND nonce = $1",
      [nonceBefore],
    );
    expect(slot).toEqual({ status: 'signed', payout_id: refused.id, current_purpose: 'cancel' });

    // The wallet can pay for gas again: the cancellation goes out and is mined; at its confirmations the payout fails.
    await anvil.client.setBalance({ address: HOT_WALLET, value: ether });
    await t.ctx.outbound.sweep(quiet);
    expect((await statusOf(tenant.key, refused.id)).status).toBe('pending');
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(quiet);
    const failed = await statusOf(tenant.key, refused.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/^Cancelled: 0x[0-9a-f]{64} was mined at the payout's nonce/) });
    expect(await available(tenant.organizationId)).toBe(before);
    expect((await eventsInOrder(t, tenant.key, refused.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.failed']);

    // The cancellation used the nonce: the next payout takes the one after it, none skipped.
    const next = await pay(tenant.key, freshDestination(), '5');
    await reaches(tenant.key, next.id, 'processing');
    const mined = await anvil.client.getTransaction({ hash: (await statusOf(tenant.key, next.id)).tx_hash as Hex });
    expect(mined.nonce).toBe(nonceBefore + 1);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});

describe('a live payout and the chain behind the RPC URL', () => {
  it('an RPC URL serving another chain than the catalog names signs nothing and takes no nonce', async () => {
    const elsewhere = await startAnvil({ chainId: 8453 });
    try {
      const payouts = sender(elsewhere.url, 0);
      const payoutId = randomUUID();
      const request = { ...requestFor(payoutId, 'ETH', freshDestination(), '0.01'), feeCap: '0.01' };
      expect(await payouts.advance(request)).toEqual({ kind: 'unknown', reason: 'the RPC URL of ethereum serves chain 8453, not 31337' });
      expect(await t.db.query('SELECT 1 FROM evm_payout_txs WHERE payout_id = $1', [payoutId])).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('a live payout stuck unmined', () => {
  afterEach(restoreMining);

  const currentTx = async (payoutId: string) => {
    const [row] = await t.db.query<{ tx_hash: string; replaced_tx_hashes: string[] }>(
      `SELECT n.tx_hash, coalesce(array_agg(s.tx_hash ORDER BY s.created_at, s.tx_hash) FILTER (WHERE s.tx_hash <> n.tx_hash), '{}') AS replaced_tx_hashes
       FROM evm_payout_txs n JOIN evm_signed_txs s ON s.nonce_id = n.id WHERE n.payout_id = $1 GROUP BY n.tx_hash`,
      [payoutId],
    );
    return row!;
  };

  const recordingLog = () => {
    const warnings: object[] = [];
    const errors: object[] = [];
    return { warnings, errors, warn: (details: object) => void warnings.push(details), error: (details: object) => void errors.push(details) };
  };

  it('is rebroadcast with the same nonce and a higher fee within the quoted cap, and completes under the new hash', async () => {
    const { tenant, destination, payout, original, cap } = await stuckPayout((stuck) => stuck.maxFeePerGas! * 2n);
    // Before CONNECT_EVM_REBROADCAST_SECONDS have passed it is left as it is.
    const patient = sender(anvil.url, 3600);
    expect(await patient.advance(requestFor(payout.id, 'USDC', destination, '10'))).toEqual({ kind: 'sent', txHash: original.hash });
    expect(await currentTx(payout.id)).toEqual({ tx_hash: original.hash, replaced_tx_hashes: [] });

    expect(await t.ctx.outbound.sweep(quiet)).toBe(0);
    const replacedHash = (await statusOf(tenant.key, payout.id)).tx_hash as Hex;
    expect(replacedHash).not.toBe(original.hash);
    const replacement = await anvil.client.getTransaction({ hash: replacedHash });
    expect(replacement.nonce).toBe(original.nonce);
    expect(replacement.maxFeePerGas! >= (original.maxFeePerGas! * 9n) / 8n).toBe(true);
    expect(replacement.gas * replacement.maxFeePerGas! <= cap).toBe(true);
    // Another instance's sweep that read the stuck transaction before cannot replace it a second time, lease or not.
    const lease = await leaseOf(payout.id);
    expect(await recordSigned(t.db, lease, original.hash, { raw: '0x00', txHash: '0x01', purpose: 'payout' })).toBeNull();

    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.outbound.sweep(quiet)).toBe(1);
    const done = await statusOf(tenant.key, payout.id);
    expect(done).toMatchObject({ status: 'completed', tx_hash: replacedHash });
    await expect(anvil.client.getTransactionReceipt({ hash: original.hash })).rejects.toThrow(TransactionReceiptNotFoundError);
    expect(await tokenBalance(destination)).toBe(parseUnits('10', 6));
    const events = await eventsInOrder(t, tenant.key, payout.id);
    expect(events.map((e) => e.type)).toEqual(['payout.created', 'payout.completed']);
    expect(events[1]!.data).toMatchObject({ tx_hash: replacedHash });
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('mined under the hash it was replaced from, it completes under that hash', async () => {
    const { tenant, destination, payout, original } = await stuckPayout((stuck) => stuck.maxFeePerGas! * 2n);
    const [{ raw: originalRaw }] = (await t.db.query<{ raw: Hex }>('SELECT raw FROM evm_payout_txs WHERE payout_id = $1', [payout.id])) as [{ raw: Hex }];
    await t.ctx.outbound.sweep(quiet);
    const replacedHash = (await statusOf(tenant.key, payout.id)).tx_hash as Hex;
    expect(replacedHash).not.toBe(original.hash);

    // The node loses the replacement and mines the first transaction after all (fees fell back).
    await anvil.client.dropTransaction({ hash: replacedHash });
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: 1n });
    await anvil.mine(1);
    await anvil.client.sendRawTransaction({ serializedTransaction: originalRaw });
    await anvil.mine(TEST_CONFIRMATIONS);
    expect((await anvil.client.getTransactionReceipt({ hash: original.hash })).status).toBe('success');

    expect(await t.ctx.outbound.sweep(quiet)).toBe(1);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'completed', tx_hash: original.hash });
    expect(await tokenBalance(destination)).toBe(parseUnits('10', 6));
    expect((await eventsInOrder(t, tenant.key, payout.id)).at(-1)!.data).toMatchObject({ tx_hash: original.hash });
  });

  it('a payout that only waits behind a stuck one of the wallet is sent again without a higher fee', async () => {
    const { tenant, payout: first } = await stuckPayout((stuck) => stuck.maxFeePerGas! * 2n);
    // Priced for the fees now, but its nonce comes after the stuck one's.
    const second = await pay(tenant.key, freshDestination(), '5');
    await reaches(tenant.key, second.id, 'processing');
    const queuedHash = (await statusOf(tenant.key, second.id)).tx_hash;

    await t.ctx.outbound.sweep(quiet);
    expect((await currentTx(first.id)).replaced_tx_hashes).toHaveLength(1);
    expect(await currentTx(second.id)).toEqual({ tx_hash: queuedHash, replaced_tx_hashes: [] });

    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.outbound.sweep(quiet)).toBe(2);
    expect(await statusOf(tenant.key, second.id)).toMatchObject({ status: 'completed', tx_hash: queuedHash });
  });

  it('a reverted payout is failed only once its block has the confirmations (a reorganization could undo the revert)', async () => {
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(quiet);
    const tenant = await fundedTenant('30');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const before = await available(tenant.organizationId);
    await anvil.client.setAutomine(false);
    const payout = await pay(tenant.key, freshDestination(), '10');
    await reaches(tenant.key, payout.id, 'processing');
    // The hot wallet's token balance (OpenZeppelin's _balances, slot 0) is emptied before the transfer is mined: it reverts.
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [HOT_WALLET, 0n]));
    await anvil.client.setStorageAt({ address: ethereum.usdc, index: slot, value: `0x${'0'.repeat(64)}` });
    await anvil.mine(1);
    const hash = (await statusOf(tenant.key, payout.id)).tx_hash as Hex;
    expect((await anvil.client.getTransactionReceipt({ hash })).status).toBe('reverted');

    expect(await t.ctx.outbound.sweep(quiet)).toBe(0);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    await anvil.mine(TEST_CONFIRMATIONS - 1);
    expect(await t.ctx.outbound.sweep(quiet)).toBe(1);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'failed', failure_reason: `The transaction ${hash} reverted on chain.` });
    expect(await available(tenant.organizationId)).toBe(before);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('a replacement the node refuses leaves the stuck transaction current, and the operator is told', async () => {
    // Fees far above what the quote charged: the replacement at the cap is below the base fee, which anvil refuses.
    const { tenant, payout, original } = await stuckPayout((stuck, cap) => (cap / stuck.gas) * 10n);
    const log = recordingLog();

    await t.ctx.outbound.sweep(log);
    expect(log.warnings).toEqual([expect.objectContaining({ payoutId: payout.id, network: 'ethereum', reason: expect.stringContaining('The node refused the replacement') })]);
    expect(await lastError(payout.id)).toContain('The node refused the replacement');
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'processing', tx_hash: original.hash });
    const sent = await currentTx(payout.id);
    // The refused replacement's hash is still looked up: a refusal may answer a retry of a request the node took.
    expect(sent!.tx_hash).toBe(original.hash);
    expect(sent!.replaced_tx_hashes).toHaveLength(1);
    expect(sent!.replaced_tx_hashes[0]).not.toBe(original.hash);
  });

  it('above the quoted cap its fee rises to the cap and no further: it waits, the operator is warned, and it completes once fees fall', async () => {
    // The market asks a little more than the cap: the replacement goes out at the cap.
    const { tenant, destination, payout, original, cap } = await stuckPayout((stuck, cap) => ((cap / stuck.gas) * 9n) / 10n);
    const log = recordingLog();
    await t.ctx.outbound.sweep(log);
    const atCapHash = (await statusOf(tenant.key, payout.id)).tx_hash as Hex;
    const atCap = await anvil.client.getTransaction({ hash: atCapHash });
    expect(atCap.nonce).toBe(original.nonce);
    expect(atCap.maxFeePerGas).toBe(cap / original.gas);
    expect(log.warnings).toEqual([]);

    // Fees rise further: the transaction at the cap stays unmined, and is not replaced again.
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: (cap / original.gas) * 10n });
    await anvil.mine(1);
    await t.ctx.outbound.sweep(log);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'processing', tx_hash: atCapHash });
    expect(log.warnings).toEqual([{ payoutId: payout.id, network: 'ethereum', txHash: atCapHash }]);
    // What an operator alerts on: an open live payout, and how long the oldest has been open.
    const scraped = await t.ctx.metrics.scrape();
    expect(scraped).toContain('connect_live_payouts_open{network="ethereum",status="processing"} 1');
    expect(scraped).toMatch(/connect_live_payouts_oldest_open_seconds\{network="ethereum",status="processing"\} \d/);

    // Empty blocks lower the base fee by 1/8 each: 20 bring it from ten times the cap below it. Anvil dropped the
    // transaction meanwhile, as nodes do with one that cannot pay the base fee: the next sweep sends it again.
    await anvil.mine(20);
    await t.ctx.outbound.sweep(log);
    expect(await anvil.client.getTransaction({ hash: atCapHash })).toMatchObject({ blockNumber: null });
    await anvil.client.setAutomine(true);
    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.outbound.sweep(log)).toBe(1);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'completed', tx_hash: atCapHash });
    expect(await t.ctx.metrics.scrape()).not.toContain('connect_live_payouts_open{');
    const receipt = await anvil.client.getTransactionReceipt({ hash: atCapHash });
    expect(receipt.gasUsed * receipt.effectiveGasPrice <= cap).toBe(true);
    expect(await tokenBalance(destination)).toBe(parseUnits('10', 6));
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});
