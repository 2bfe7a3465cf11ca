import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { encodeAbiParameters, erc20Abi, keccak256, parseGwei, parseUnits, TransactionReceiptNotFoundError, type Address, type Hex, type Transaction } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Payout, PayoutQuote } from '../src/http/resources/payout.js';
import { Decimal } from '../src/domain/money.js';
import { localSigner } from '../src/providers/chains/evm-signer.js';
import { EvmPayouts } from '../src/providers/custody/evm-payouts.js';
import { ProviderRetryLater } from '../src/providers/custody/custody-provider.js';
import type { Database } from '../src/store/database.js';
import { recordReplacement } from '../src/store/evm-payouts.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import type { TestApp, Tenant } from './support/app.js';
import { startAnvil, type Anvil } from './support/evm/anvil.js';
import { HOT_WALLET, HOT_WALLET_KEY, quiet, startLiveEvmApp, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from './support/evm/live-app.js';
import { createAddress, createTenant, eventsInOrder, json } from './support/partner.js';

type Quote = Static<typeof PayoutQuote>;
type PayoutObject = Static<typeof Payout>;

let anvil: Anvil;
let ethereum: WatchedNetwork;
let t: TestApp;

beforeAll(async () => {
  anvil = await startAnvil();
  ethereum = { network: 'ethereum', anvil, usdc: await anvil.deployToken() };
  t = await startLiveEvmApp([ethereum]);
  await watcherFor(t, ethereum).tick();
});

afterAll(async () => {
  await t?.close();
  await anvil?.close();
});

/** A live tenant whose treasury was credited `amount` USDC on ethereum by a real deposit. */
async function fundedTenant(amount: string): Promise<Tenant> {
  const tenant = await createTenant(t, { mode: 'live' });
  const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
  await anvil.sendToken(ethereum.usdc, address.address, amount);
  await anvil.mine(TEST_CONFIRMATIONS);
  expect(await watcherFor(t, ethereum).tick()).toBe(1);
  return tenant;
}

async function pay(key: string, destination: string, amount: string): Promise<PayoutObject> {
  const quote = await t.call(key, 'POST', '/payouts/quote', {
    body: { asset: 'USDC', amount, destination, network_hint: 'ethereum' },
    idempotencyKey: randomUUID(),
  });
  expect(quote.statusCode, quote.body).toBe(201);
  const res = await t.call(key, 'POST', '/payouts', { body: { quote_id: json<Quote>(quote).quote_id }, idempotencyKey: randomUUID() });
  expect(res.statusCode, res.body).toBe(201);
  return json<PayoutObject>(res);
}

const statusOf = async (key: string, id: string) => json<PayoutObject & { tx_hash: string | null }>(await t.call(key, 'GET', `/payouts/${id}`));
/** Waits for the payout to reach `status` (the broadcast happens after the executing request's commit). */
const reaches = (key: string, id: string, status: PayoutObject['status']) =>
  expect.poll(async () => (await statusOf(key, id)).status, { timeout: 20_000 }).toBe(status);
const tokenBalance = (owner: string) =>
  anvil.client.readContract({ address: ethereum.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] });
const available = async (organizationId: string) => {
  const [row] = await t.db.query<{ balance: string }>(
    "SELECT coalesce(sum(balance), 0)::text AS balance FROM ledger_accounts WHERE organization_id = $1 AND mode = 'live' AND kind = 'available' AND asset = 'USDC'",
    [organizationId],
  );
  return new Decimal(row!.balance).toFixed();
};
const freshDestination = () => `0x${randomUUID().replaceAll('-', '')}${'0'.repeat(8)}`;

describe('live payouts on EVM from the hot wallet', () => {
  it('a payout is signed, broadcast after commit, mined, and completes at its confirmations with its hash', async () => {
    const tenant = await fundedTenant('50');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const destination = freshDestination();
    const payout = await pay(tenant.key, destination, '10');
    expect(payout.status).toBe('pending');
    await reaches(tenant.key, payout.id, 'processing');
    expect(await tokenBalance(destination)).toBe(parseUnits('10', 6));

    expect(await t.ctx.payouts.trackLive(quiet)).toBe(0);
    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.payouts.trackLive(quiet)).toBe(1);
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

  it('a payout the chain refuses (the hot wallet lacks the tokens) fails and its funds are released', async () => {
    const tenant = await fundedTenant('20');
    const held = await anvil.client.readContract({ address: ethereum.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [HOT_WALLET] });
    // The hot wallet gives its tokens away: the transfer cannot succeed.
    await anvil.client.impersonateAccount({ address: HOT_WALLET });
    await anvil.client.writeContract({ account: HOT_WALLET, address: ethereum.usdc, abi: erc20Abi, functionName: 'transfer', args: [freshDestination() as Address, held], chain: null });
    await anvil.client.stopImpersonatingAccount({ address: HOT_WALLET });
    const before = await available(tenant.organizationId);

    const payout = await pay(tenant.key, freshDestination(), '5');
    await reaches(tenant.key, payout.id, 'failed');
    expect(await available(tenant.organizationId)).toBe(before);
    expect((await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.failed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});

describe('a live payout whose broadcast the node refuses', () => {
  it('fails with its funds released and a reason that never names the RPC URL; its nonce goes to the next payout (none skipped)', async () => {
    const tenant = await fundedTenant('30');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const nonceBefore = await anvil.client.getTransactionCount({ address: HOT_WALLET });
    const before = await available(tenant.organizationId);
    // Without ether the hot wallet cannot pay for gas: the estimate passes, the node refuses the signed transaction.
    const ether = await anvil.client.getBalance({ address: HOT_WALLET });
    await anvil.client.setBalance({ address: HOT_WALLET, value: 0n });
    const refused = await pay(tenant.key, freshDestination(), '5');
    await reaches(tenant.key, refused.id, 'failed');
    const reason = (await statusOf(tenant.key, refused.id)).failure_reason!;
    expect(reason).toMatch(/insufficient funds/i);
    // The node's words, never its URL (providers put API keys in it) nor the request body.
    expect(reason).not.toContain(anvil.url.replace('http://', ''));
    expect(reason).not.toMatch(/URL|Request body/);
    expect(await available(tenant.organizationId)).toBe(before);
    expect((await eventsInOrder(t, tenant.key, refused.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.failed']);

    // It was signed and sent (not refused at the estimate): its nonce was taken, then given back.
    const [slot] = await t.db.query<{ status: string; payout_id: string | null }>(
      "SELECT status, payout_id FROM evm_payout_txs WHERE network = 'ethereum' AND nonce = $1",
      [nonceBefore],
    );
    expect(slot).toEqual({ status: 'released', payout_id: null });

    await anvil.client.setBalance({ address: HOT_WALLET, value: ether });
    const next = await pay(tenant.key, freshDestination(), '5');
    await reaches(tenant.key, next.id, 'processing');
    const mined = await anvil.client.getTransaction({ hash: (await statusOf(tenant.key, next.id)).tx_hash as Hex });
    expect(mined.nonce).toBe(nonceBefore);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});

describe('a live payout whose database write fails after its broadcast', () => {
  it('is to be sent again (never failed: its transaction is out), and the resend records it without paying twice', async () => {
    const tenant = await fundedTenant('30');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const destination = freshDestination();
    const payout = await pay(tenant.key, destination, '4');
    await reaches(tenant.key, payout.id, 'processing');
    const { tx_hash: txHash } = await statusOf(tenant.key, payout.id);
    const request = { payoutId: payout.id, organizationId: tenant.organizationId, asset: 'USDC', network: 'ethereum', destination, amount: '4', feeCap: '0.01' };
    const sender = (db: Database) => new EvmPayouts(db, t.ctx.catalog, new Map([['ethereum', anvil.url]]), localSigner(HOT_WALLET_KEY), 0);

    const losingTheRecord: Database = {
      ...t.db,
      query: (text, params) => (text.includes("status = 'broadcast'") ? Promise.reject(new Error('connection lost')) : t.db.query(text, params)),
    };
    await expect(sender(losingTheRecord).send(request)).rejects.toThrow(ProviderRetryLater);
    await expect(sender(t.db).send(request)).resolves.toEqual({ txHash });
    expect(await tokenBalance(destination)).toBe(parseUnits('4', 6));
  });
});

describe('a live payout and the chain behind the RPC URL', () => {
  it('an RPC URL serving another chain than the catalog names signs nothing and takes no nonce', async () => {
    const elsewhere = await startAnvil({ chainId: 8453 });
    try {
      const payouts = new EvmPayouts(t.db, t.ctx.catalog, new Map([['ethereum', elsewhere.url]]), localSigner(HOT_WALLET_KEY), 0);
      const payoutId = randomUUID();
      const request = { payoutId, organizationId: randomUUID(), asset: 'ETH', network: 'ethereum', destination: freshDestination(), amount: '0.01', feeCap: '0.01' };
      await expect(payouts.send(request)).rejects.toThrow('the RPC URL of ethereum serves chain 8453, not 31337');
      expect(await t.db.query('SELECT 1 FROM evm_payout_txs WHERE payout_id = $1', [payoutId])).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('a live payout stuck unmined', () => {
  /**
   * A payout broadcast while blocks are mined only on demand, then stuck: the next block's base fee (given the
   * transaction and the payout's fee cap) is above its max fee. Payouts of earlier tests are settled first.
   */
  async function stuckPayout(baseFeePerGas: (stuck: Transaction, cap: bigint) => bigint) {
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.payouts.trackLive(quiet);
    const tenant = await fundedTenant('30');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const destination = freshDestination();
    await anvil.client.setAutomine(false);
    const payout = await pay(tenant.key, destination, '10');
    await reaches(tenant.key, payout.id, 'processing');
    const original = await anvil.client.getTransaction({ hash: (await statusOf(tenant.key, payout.id)).tx_hash as Hex });
    const [sent] = await t.db.query<{ fee_cap_wei: string }>('SELECT fee_cap_wei::text AS fee_cap_wei FROM evm_payout_txs WHERE payout_id = $1', [payout.id]);
    const cap = BigInt(sent!.fee_cap_wei);
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: baseFeePerGas(original, cap) });
    await anvil.mine(1);
    await expect(anvil.client.getTransactionReceipt({ hash: original.hash })).rejects.toThrow(TransactionReceiptNotFoundError);
    return { tenant, destination, payout, original, cap };
  }

  /** Back to mining on arrival at a base fee below any cap, for the next test. */
  afterEach(async () => {
    await anvil.client.setAutomine(true);
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('1') });
    await anvil.mine(1);
  });

  const currentTx = async (payoutId: string) => {
    const [row] = await t.db.query<{ tx_hash: string; replaced_tx_hashes: string[] }>('SELECT tx_hash, replaced_tx_hashes FROM evm_payout_txs WHERE payout_id = $1', [payoutId]);
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
    const patient = new EvmPayouts(t.db, t.ctx.catalog, new Map([['ethereum', anvil.url]]), localSigner(HOT_WALLET_KEY), 3600);
    expect(await patient.progress({ id: payout.id, network: 'ethereum', asset: 'USDC', txHash: original.hash })).toEqual({ state: 'pending', txHash: original.hash });
    expect(await currentTx(payout.id)).toEqual({ tx_hash: original.hash, replaced_tx_hashes: [] });

    expect(await t.ctx.payouts.trackLive(quiet)).toBe(0);
    const replacedHash = (await statusOf(tenant.key, payout.id)).tx_hash as Hex;
    expect(replacedHash).not.toBe(original.hash);
    const replacement = await anvil.client.getTransaction({ hash: replacedHash });
    expect(replacement.nonce).toBe(original.nonce);
    expect(replacement.maxFeePerGas! >= (original.maxFeePerGas! * 9n) / 8n).toBe(true);
    expect(replacement.gas * replacement.maxFeePerGas! <= cap).toBe(true);
    // Another instance's sweep that read the stuck transaction before cannot replace it a second time.
    expect(await recordReplacement(t.db, payout.id, original.hash, { raw: '0x00', txHash: '0x01' })).toBe(false);

    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.payouts.trackLive(quiet)).toBe(1);
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
    await t.ctx.payouts.trackLive(quiet);
    const replacedHash = (await statusOf(tenant.key, payout.id)).tx_hash as Hex;
    expect(replacedHash).not.toBe(original.hash);

    // The node loses the replacement and mines the first transaction after all (fees fell back).
    await anvil.client.dropTransaction({ hash: replacedHash });
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: 1n });
    await anvil.mine(1);
    await anvil.client.sendRawTransaction({ serializedTransaction: originalRaw });
    await anvil.mine(TEST_CONFIRMATIONS);
    expect((await anvil.client.getTransactionReceipt({ hash: original.hash })).status).toBe('success');

    expect(await t.ctx.payouts.trackLive(quiet)).toBe(1);
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

    await t.ctx.payouts.trackLive(quiet);
    expect((await currentTx(first.id)).replaced_tx_hashes).toHaveLength(1);
    expect(await currentTx(second.id)).toEqual({ tx_hash: queuedHash, replaced_tx_hashes: [] });

    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.payouts.trackLive(quiet)).toBe(2);
    expect(await statusOf(tenant.key, second.id)).toMatchObject({ status: 'completed', tx_hash: queuedHash });
  });

  it('a reverted payout is failed only once its block has the confirmations (a reorganization could undo the revert)', async () => {
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.payouts.trackLive(quiet);
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

    expect(await t.ctx.payouts.trackLive(quiet)).toBe(0);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    await anvil.mine(TEST_CONFIRMATIONS - 1);
    expect(await t.ctx.payouts.trackLive(quiet)).toBe(1);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'failed', failure_reason: `The transaction ${hash} reverted on chain.` });
    expect(await available(tenant.organizationId)).toBe(before);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('a replacement the node refuses leaves the stuck transaction current, and the operator is told', async () => {
    // Fees far above what the quote charged: the replacement at the cap is below the base fee, which anvil refuses.
    const { tenant, payout, original } = await stuckPayout((stuck, cap) => (cap / stuck.gas) * 10n);
    const log = recordingLog();

    await t.ctx.payouts.trackLive(log);
    expect(log.errors).toEqual([expect.objectContaining({ payoutId: payout.id, network: 'ethereum' })]);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'processing', tx_hash: original.hash });
    const [sent] = await t.db.query<{ tx_hash: string; replaced_tx_hashes: string[] }>('SELECT tx_hash, replaced_tx_hashes FROM evm_payout_txs WHERE payout_id = $1', [
      payout.id,
    ]);
    // The refused replacement's hash is still looked up: a refusal may answer a retry of a request the node took.
    expect(sent!.tx_hash).toBe(original.hash);
    expect(sent!.replaced_tx_hashes).toHaveLength(1);
    expect(sent!.replaced_tx_hashes[0]).not.toBe(original.hash);
  });

  it('above the quoted cap its fee rises to the cap and no further: it waits, the operator is warned, and it completes once fees fall', async () => {
    // The market asks a little more than the cap: the replacement goes out at the cap.
    const { tenant, destination, payout, original, cap } = await stuckPayout((stuck, cap) => ((cap / stuck.gas) * 9n) / 10n);
    const log = recordingLog();
    await t.ctx.payouts.trackLive(log);
    const atCapHash = (await statusOf(tenant.key, payout.id)).tx_hash as Hex;
    const atCap = await anvil.client.getTransaction({ hash: atCapHash });
    expect(atCap.nonce).toBe(original.nonce);
    expect(atCap.maxFeePerGas).toBe(cap / original.gas);
    expect(log.warnings).toEqual([]);

    // Fees rise further: the transaction at the cap stays unmined, and is not replaced again.
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: (cap / original.gas) * 10n });
    await anvil.mine(1);
    await t.ctx.payouts.trackLive(log);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'processing', tx_hash: atCapHash });
    expect(log.warnings).toEqual([{ payoutId: payout.id, network: 'ethereum', txHash: atCapHash }]);
    // What an operator alerts on: an open live payout, and how long the oldest has been open.
    const scraped = await t.ctx.metrics.scrape();
    expect(scraped).toContain('connect_live_payouts_open{network="ethereum",status="processing"} 1');
    expect(scraped).toMatch(/connect_live_payouts_oldest_open_seconds\{network="ethereum",status="processing"\} \d/);

    // Empty blocks lower the base fee by 1/8 each: 20 bring it from ten times the cap below it. Anvil dropped the
    // transaction meanwhile, as nodes do with one that cannot pay the base fee: the next sweep sends it again.
    await anvil.mine(20);
    await t.ctx.payouts.trackLive(log);
    expect(await anvil.client.getTransaction({ hash: atCapHash })).toMatchObject({ blockNumber: null });
    await anvil.client.setAutomine(true);
    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.payouts.trackLive(log)).toBe(1);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'completed', tx_hash: atCapHash });
    expect(await t.ctx.metrics.scrape()).not.toContain('connect_live_payouts_open{');
    const receipt = await anvil.client.getTransactionReceipt({ hash: atCapHash });
    expect(receipt.gasUsed * receipt.effectiveGasPrice <= cap).toBe(true);
    expect(await tokenBalance(destination)).toBe(parseUnits('10', 6));
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});
