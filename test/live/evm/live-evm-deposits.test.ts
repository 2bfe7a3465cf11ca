import { describe, expect, it } from 'vitest';
import { serializeTransaction, type Hex, type Transaction } from 'viem';
import { runCli } from '../../../src/cli/run.js';
import type { Database } from '../../../src/store/database.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { Tenant } from '../../support/app.js';
import { ManualClock } from '../../support/clock.js';
import { TEST_CONFIRMATIONS, TEST_XPUB, useLiveEthereum, watcherFor } from '../../support/evm/live-app.js';
import { parseExposition, valueOf } from '../../support/metrics.js';
import { EvmXpub } from '../../../src/providers/chains/evm-xpub.js';
import { rpcChainReader, type EvmChainReader } from '../../../src/providers/chains/evm-rpc.js';
import {
  accountsOf,
  countRows,
  createAddress,
  createIntent,
  createTenant,
  errorOf,
  eventsInOrder,
  getIntent,
  json,
  postIntent,
  type TransactionObject,
} from '../../support/partner.js';

const chain = useLiveEthereum();

async function transactionsOf(key: string, query = ''): Promise<TransactionObject[]> {
  const res = await chain.t.call(key, 'GET', `/transactions${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return json<{ data: TransactionObject[] }>(res).data;
}

/** The signed bytes of a mined EIP-1559 transaction, to mine it again in another chain. */
function rawOf(tx: Transaction): Hex {
  return serializeTransaction(
    { type: 'eip1559', chainId: tx.chainId!, nonce: tx.nonce, to: tx.to!, value: tx.value, gas: tx.gas, maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas!, data: tx.input, accessList: tx.accessList },
    { r: tx.r, s: tx.s, yParity: tx.yParity! },
  );
}

/** The available USDC on ethereum of the treasury that owns the address. */
async function usdcBalance(addressId: string): Promise<string> {
  const [row] = await chain.t.db.query<{ balance: string }>(
    `SELECT coalesce(sum(a.balance), 0)::text AS balance FROM ledger_accounts a JOIN deposit_addresses d ON d.organization_id = a.organization_id
     WHERE d.id = $1 AND a.mode = 'live' AND a.kind = 'available' AND a.profile_id IS NULL AND a.asset = 'USDC' AND a.network = 'ethereum'`,
    [addressId],
  );
  return row!.balance;
}

const byHash = async (hash: string) => (await transactionsOf(chain.live.key)).filter((tx) => tx.tx_hash === hash);

describe('live deposit addresses from the operator xpub', () => {
  it('live capabilities list only the watched network; sandbox lists every network', async () => {
    const liveCaps = json<{ networks: { code: string }[]; assets: { code: string }[] }>(await chain.t.call(chain.live.key, 'GET', '/capabilities'));
    expect(liveCaps.networks.map((n) => n.code)).toEqual(['ethereum']);
    expect(liveCaps.assets.map((a) => a.code)).toEqual(['USDT', 'USDC', 'ETH']);
    const sandbox = await createTenant(chain.t);
    const sandboxCaps = json<{ networks: { code: string }[] }>(await chain.t.call(sandbox.key, 'GET', '/capabilities'));
    expect(sandboxCaps.networks.map((n) => n.code)).toContain('solana');
  });

  it('a live intent in currencies without a watched network answers 400 catalog_invalid naming all of them', async () => {
    const res = await postIntent(chain.t, chain.live.key, { amount: '10', currencies: ['USDC', 'SOL', 'BTC'] });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'catalog_invalid', param: 'currencies' });
    expect(errorOf(res).message).toContain('SOL, BTC');
  });

  it('each live address is the xpub\'s next index, recorded with it; concurrent creations never share one', async () => {
    const xpub = EvmXpub.parse(TEST_XPUB);
    const intents = await Promise.all(Array.from({ length: 8 }, () => createIntent(chain.t, chain.live.key, { currencies: ['USDC', 'ETH'] })));
    const addresses = intents.flatMap((i) => i.addresses);
    expect(addresses.every((a) => a.network === 'ethereum')).toBe(true);
    expect(new Set(addresses.map((a) => a.address)).size).toBe(addresses.length);
    const derived = await chain.t.db.query<{ derivation_index: string; address: string }>(
      'SELECT derivation_index::text AS derivation_index, address FROM derived_addresses WHERE address = ANY($1::text[])',
      [addresses.map((a) => a.address)],
    );
    expect(derived).toHaveLength(addresses.length);
    for (const row of derived) expect(xpub.address(Number(row.derivation_index))).toBe(row.address);
  });
});

describe('the chain watcher credits deposits after their confirmations', () => {
  it('a token deposit is pending until the Nth block, then credited; a second one completes the intent', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { amount: '10', currencies: ['USDC'] });
    const to = intent.addresses[0]!.address;
    const first = await chain.anvil.sendToken(chain.ethereum.usdc, to, '4');
    await chain.anvil.mine(TEST_CONFIRMATIONS - 2);
    expect(await chain.watcher().tick()).toBe(0);
    expect(await byHash(first)).toMatchObject([{ status: 'pending', amount: '4', payment_intent_id: intent.id, network: 'ethereum' }]);
    expect((await getIntent(chain.t, chain.live.key, intent.id)).amount_received).toBe(0);

    await chain.anvil.mine(1);
    expect(await chain.watcher().tick()).toBe(1);
    expect(await byHash(first)).toMatchObject([{ status: 'confirmed' }]);
    expect(await getIntent(chain.t, chain.live.key, intent.id)).toMatchObject({ status: 'pending', amount_received: 4, partial_payment: true });

    const second = await chain.anvil.sendToken(chain.ethereum.usdc, to, '6');
    await chain.anvil.mine(TEST_CONFIRMATIONS - 1);
    expect(await chain.watcher().tick()).toBe(1);
    expect(await getIntent(chain.t, chain.live.key, intent.id)).toMatchObject({ status: 'completed', amount_received: 10, deposit: { tx_hash: second } });
    const types = (await eventsInOrder(chain.t, chain.live.key, intent.id)).map((e) => e.type);
    expect(types).toEqual(['payment_intent.payment_received', 'payment_intent.payment_received', 'payment_intent.completed']);
  });

  it('a native deposit to a standalone address is credited after N blocks with address.deposit.received', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'ETH', network: 'ethereum' });
    const hash = await chain.anvil.sendEth(address.address, '0.25');
    expect(await chain.watcher().tick()).toBe(0);
    await chain.anvil.mine(TEST_CONFIRMATIONS - 1);
    expect(await chain.watcher().tick()).toBe(1);
    expect(await byHash(hash)).toMatchObject([{ status: 'confirmed', asset: 'ETH', amount: '0.25', payment_intent_id: null }]);
    expect((await eventsInOrder(chain.t, chain.live.key, address.id)).map((e) => e.type)).toEqual(['address.deposit.received']);
  });
});

describe('reorganizations', () => {
  it('a block that vanishes before its deposit has its confirmations leaves no credit; the row is failed', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'USDC', network: 'ethereum' });
    const snapshot = await chain.anvil.client.snapshot();
    const hash = await chain.anvil.sendToken(chain.ethereum.usdc, address.address, '5');
    expect(await chain.watcher().tick()).toBe(0);
    expect(await byHash(hash)).toMatchObject([{ status: 'pending' }]);

    await chain.anvil.client.revert({ id: snapshot });
    await chain.anvil.mine(TEST_CONFIRMATIONS + 2);
    await chain.watcher().tick(); // finds the fork and rewinds
    expect(await chain.watcher().tick()).toBe(0); // reads the new blocks: the transfer is not in them
    expect(await byHash(hash)).toMatchObject([{ status: 'failed' }]);
    expect(await accountsOf(chain.t, chain.live.organizationId, 'live')).not.toContainEqual(expect.objectContaining({ asset: 'USDC', network: 'ethereum', balance: '5' }));
    expect(await countRows(chain.t, 'SELECT 1 FROM ledger_transfers WHERE cause LIKE $1', [`%${hash}%`])).toBe(0);
  });

  it('a transfer that reappears in the new chain before its confirmations is credited once', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'ETH', network: 'ethereum' });
    const snapshot = await chain.anvil.client.snapshot();
    const hash = await chain.anvil.sendEth(address.address, '0.5');
    const raw = await chain.anvil.client.getTransaction({ hash });
    expect(await chain.watcher().tick()).toBe(0);
    await chain.anvil.client.revert({ id: snapshot });
    // The same signed transaction mined again, one block later than before.
    await chain.anvil.mine(1);
    await chain.anvil.client.sendRawTransaction({ serializedTransaction: rawOf(raw) });
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    await chain.watcher().tick();
    expect(await chain.watcher().tick()).toBe(1);
    expect(await byHash(hash)).toMatchObject([{ status: 'confirmed', amount: '0.5' }]);
  });

  it('a reorganization deeper than the confirmations reverses the credit: ledger back to world, deposit.reversed, row failed', async () => {
    const own = await createTenant(chain.t, { mode: 'live' });
    const address = await createAddress(chain.t, own.key, { asset: 'USDC', network: 'ethereum' });
    const snapshot = await chain.anvil.client.snapshot();
    const hash = await chain.anvil.sendToken(chain.ethereum.usdc, address.address, '7');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await chain.watcher().tick()).toBe(1);
    expect(await usdcBalance(address.id)).toBe('7');

    await chain.anvil.client.revert({ id: snapshot });
    await chain.anvil.mine(TEST_CONFIRMATIONS + 3);
    const clock = new ManualClock();
    await chain.watcher(clock).tick(); // the fork, seen once below a credited deposit: recorded, nothing reversed
    expect((await transactionsOf(own.key)).filter((tx) => tx.tx_hash === hash)).toMatchObject([{ status: 'confirmed' }]);
    clock.advance(60_000);
    await chain.watcher(clock).tick(); // seen again a minute later: the credit is reversed and the blocks read again
    expect(await chain.watcher(clock).tick()).toBe(0);
    expect((await transactionsOf(own.key)).filter((tx) => tx.tx_hash === hash)).toMatchObject([{ status: 'failed' }]);
    expect(await usdcBalance(address.id)).toBe('0');
    const events = await eventsInOrder(chain.t, own.key, address.id);
    expect(events.map((e) => e.type)).toEqual(['address.deposit.received', 'deposit.reversed']);
    expect(events[1]!.data).toMatchObject({ amount: '7', amount_unrecovered: '0', hash, reason: 'reorganization' });
    expect((await verifyLedger(chain.t.db)).ok).toBe(true);
  });
  it('a credited deposit that a deeper reorganization reversed and the new chain mines again is credited again, under a cause of its own, its events in order', async () => {
    const own = await createTenant(chain.t, { mode: 'live' });
    const address = await createAddress(chain.t, own.key, { asset: 'ETH', network: 'ethereum' });
    const snapshot = await chain.anvil.client.snapshot();
    const hash = await chain.anvil.sendEth(address.address, '0.5');
    const mined = await chain.anvil.client.getTransaction({ hash });
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await chain.watcher().tick()).toBe(1);

    await chain.anvil.client.revert({ id: snapshot });
    await chain.anvil.mine(TEST_CONFIRMATIONS + 3);
    // The same signed transaction, mined again in the new chain, later than before.
    await chain.anvil.client.sendRawTransaction({ serializedTransaction: rawOf(mined) });
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    const clock = new ManualClock();
    await chain.watcher(clock).tick();
    clock.advance(60_000);
    await chain.watcher(clock).tick();
    expect(await chain.watcher(clock).tick()).toBe(1);

    expect((await transactionsOf(own.key)).filter((tx) => tx.tx_hash === hash)).toMatchObject([{ status: 'confirmed', amount: '0.5' }]);
    const events = await eventsInOrder(chain.t, own.key, address.id);
    expect(events.map((e) => e.type)).toEqual(['address.deposit.received', 'deposit.reversed', 'address.deposit.received']);
    const causes = await chain.t.db.query<{ cause: string }>('SELECT cause FROM ledger_transfers WHERE cause LIKE $1 ORDER BY cause', [`%${hash}%`]);
    expect(causes.map((c) => c.cause)).toEqual([`deposit:ethereum:${hash}:0`, `deposit:ethereum:${hash}:0:2`, `deposit:ethereum:${hash}:0:reversal`]);
    expect((await accountsOf(chain.t, own.organizationId, 'live')).filter((a) => a.asset === 'ETH')).toMatchObject([{ balance: '0.5' }]);
    expect((await verifyLedger(chain.t.db)).ok).toBe(true);
  });
});

describe('watchers that die, and watchers side by side', () => {
  /** Three deposits in three blocks to a fresh standalone address of a fresh tenant, already confirmed. */
  async function threeDeposits() {
    const tenant = await createTenant(chain.t, { mode: 'live' });
    const address = await createAddress(chain.t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    const hashes = [];
    for (const amount of ['1', '2', '3']) hashes.push(await chain.anvil.sendToken(chain.ethereum.usdc, address.address, amount));
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    return { tenant, address, hashes };
  }

  async function expectCreditedOnce(tenant: Tenant, addressId: string, hashes: string[]) {
    const rows = (await transactionsOf(tenant.key)).filter((tx) => hashes.includes(tx.tx_hash!));
    expect(rows.map((r) => `${r.amount}:${r.status}`).sort()).toEqual(['1:confirmed', '2:confirmed', '3:confirmed']);
    expect(await usdcBalance(addressId)).toBe('6');
    expect(await countRows(chain.t, "SELECT 1 FROM events WHERE related_to = $1 AND type = 'address.deposit.received'", [addressId])).toBe(3);
  }

  it('a watcher killed mid-tick (after its RPC calls, or inside its transaction) commits nothing; a restarted one skips and double-counts nothing', async () => {
    const { tenant, address, hashes } = await threeDeposits();
    const real = rpcChainReader(chain.anvil.url);
    // Dies after reading the blocks, before the logs: nothing reaches the database.
    const dying: EvmChainReader = { ...real, tokenTransfers: () => Promise.reject(new Error('killed')) };
    await expect(watcherFor(chain.t, chain.ethereum, { chain: dying, batchBlocks: 2 }).tick()).rejects.toThrow('killed');
    // Dies inside its transaction, after writing: the transaction rolls back.
    const crashing: Database = {
      ...chain.t.db,
      transaction: (work) => chain.t.db.transaction(async (tx) => {
        await work(tx);
        throw new Error('killed before commit');
      }),
    };
    await expect(watcherFor(chain.t, chain.ethereum, { db: crashing, batchBlocks: 2 }).tick()).rejects.toThrow('killed before commit');
    expect((await transactionsOf(tenant.key)).filter((tx) => hashes.includes(tx.tx_hash!))).toEqual([]);

    // Restarted, one block per tick, until it has caught up with the head.
    const restarted = watcherFor(chain.t, chain.ethereum, { batchBlocks: 1 });
    let credited = 0;
    for (let i = 0; i < 10 * TEST_CONFIRMATIONS; i++) credited += await restarted.tick();
    expect(credited).toBe(3);
    await expectCreditedOnce(tenant, address.id, hashes);
  });

  it('two watchers on one network credit every deposit once', async () => {
    const { tenant, address, hashes } = await threeDeposits();
    const [a, b] = [watcherFor(chain.t, chain.ethereum, { batchBlocks: 1 }), watcherFor(chain.t, chain.ethereum, { batchBlocks: 1 })];
    let credited = 0;
    for (let i = 0; i < 10 * TEST_CONFIRMATIONS; i++) credited += (await Promise.all([a.tick(), b.tick()])).reduce((x, y) => x + y, 0);
    expect(credited).toBe(3);
    await expectCreditedOnce(tenant, address.id, hashes);
  });
});

describe('a deposit whose credit fails is quarantined', () => {
  interface QuarantinedDeposit {
    transaction_id: string;
    tx_hash: string;
    amount: string;
    credit_attempts: number;
    last_error: string;
    quarantined_at: string;
    next_attempt_at: string;
  }

  async function quarantined(): Promise<QuarantinedDeposit[]> {
    const res = await chain.t.admin('GET', '/deposits/quarantined?network=ethereum');
    expect(res.statusCode, res.body).toBe(200);
    return json<{ data: QuarantinedDeposit[] }>(res).data;
  }

  async function metric(name: string): Promise<number | undefined> {
    return valueOf(parseExposition((await chain.t.admin('GET', '/metrics')).body), name, { network: 'ethereum' });
  }

  /** A CHECK constraint that refuses to confirm the deposit row of `hash`: a credit that fails in the database, as a real fault would. */
  const refuseCredit = (name: string, hash: string) =>
    chain.t.db.query(`ALTER TABLE transactions ADD CONSTRAINT "${name}" CHECK (tx_hash IS DISTINCT FROM '${hash}' OR status <> 'confirmed')`);

  /** Moves `clock` to when the deposit's next credit attempt is due. */
  const untilRetry = (clock: ManualClock, deposit: QuarantinedDeposit) => clock.advance(Date.parse(deposit.next_attempt_at) - clock.now().getTime());

  it('a deposit whose credit throws is quarantined and stops nothing: the other one of the same blocks and later ones are credited; once the cause is removed it is credited exactly once', async () => {
    const tenant = await createTenant(chain.t, { mode: 'live' });
    const address = await createAddress(chain.t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    const failing = await chain.anvil.sendToken(chain.ethereum.usdc, address.address, '2');
    const other = await chain.anvil.sendToken(chain.ethereum.usdc, address.address, '3');
    await refuseCredit('refuse_one_credit', failing);
    const failuresBefore = (await metric('connect_deposit_credit_failures_total')) ?? 0;
    const clock = new ManualClock();
    const watcher = watcherFor(chain.t, chain.ethereum, { clock });

    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await watcher.tick()).toBe(1);
    const ofHash = async (hash: string) => (await transactionsOf(tenant.key)).filter((tx) => tx.tx_hash === hash);
    expect(await ofHash(other)).toMatchObject([{ status: 'confirmed' }]);
    const [pending] = await ofHash(failing);
    expect(pending).toMatchObject({ status: 'pending', amount: '2' });
    expect(await usdcBalance(address.id)).toBe('3');
    const [first, ...none] = await quarantined();
    expect(none).toEqual([]);
    expect(first).toMatchObject({ transaction_id: pending!.id, tx_hash: failing, amount: '2', credit_attempts: 1, quarantined_at: clock.now().toISOString() });
    expect(first!.last_error).toContain('refuse_one_credit');
    expect(Date.parse(first!.next_attempt_at)).toBe(clock.now().getTime() + 30_000);
    expect(await metric('connect_deposits_quarantined')).toBe(1);
    expect(await metric('connect_deposit_credit_failures_total')).toBe(failuresBefore + 1);

    // The operator CLI shows the same list, through the same operator API call.
    let printed = '';
    const io = { stdout: { write: (text: string) => (printed += text) }, stderr: { write: () => true } };
    const database = async () => ({ ...chain.t.db, close: async () => {} });
    expect(await runCli(['deposits', 'quarantined', '--network', 'ethereum'], io, database, { CONNECT_DATA_DIR: '/nonexistent-cli-data-dir' })).toBe(0);
    expect(JSON.parse(printed)).toMatchObject({ data: [first], has_more: false });

    // The cursor went on; a later deposit is credited while the quarantined one waits for its retry.
    const later = await chain.anvil.sendToken(chain.ethereum.usdc, address.address, '4');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await watcher.tick()).toBe(1);
    expect(await ofHash(later)).toMatchObject([{ status: 'confirmed' }]);
    expect((await quarantined())[0]!.credit_attempts).toBe(1);

    // Its retry, while the cause is still there, fails again and waits twice as long.
    untilRetry(clock, first!);
    expect(await watcher.tick()).toBe(0);
    const [second] = await quarantined();
    expect(second).toMatchObject({ credit_attempts: 2, quarantined_at: first!.quarantined_at });
    expect(Date.parse(second!.next_attempt_at)).toBe(clock.now().getTime() + 60_000);

    await chain.t.db.query('ALTER TABLE transactions DROP CONSTRAINT refuse_one_credit');
    untilRetry(clock, second!);
    expect(await watcher.tick()).toBe(1);
    expect(await watcher.tick()).toBe(0);
    expect(await quarantined()).toEqual([]);
    expect(await metric('connect_deposits_quarantined')).toBeUndefined();
    expect(await ofHash(failing)).toMatchObject([{ status: 'confirmed', amount: '2' }]);
    expect(await usdcBalance(address.id)).toBe('9');
    expect(await countRows(chain.t, 'SELECT 1 FROM ledger_transfers WHERE cause LIKE $1', [`%${failing}%`])).toBe(1);
    expect(await countRows(chain.t, "SELECT 1 FROM events WHERE related_to = $1 AND type = 'address.deposit.received'", [address.id])).toBe(3);
    expect((await verifyLedger(chain.t.db)).ok).toBe(true);
  });

  it("a quarantined deposit's last error never carries a URL (an RPC URL holds its provider's key)", async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'ETH', network: 'ethereum' });
    const hash = await chain.anvil.sendEth(address.address, '0.1');
    const url = 'https://eth-mainnet.example/v2/SECRET-API-KEY';
    await refuseCredit(`refused by ${url}`, hash);
    const clock = new ManualClock();
    const watcher = watcherFor(chain.t, chain.ethereum, { clock });
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await watcher.tick()).toBe(0);
    const [deposit] = await quarantined();
    expect(deposit!.last_error).toContain('violates check constraint');
    expect(deposit!.last_error).not.toContain('SECRET-API-KEY');
    expect(deposit!.last_error).not.toContain('https:');

    await chain.t.db.query(`ALTER TABLE transactions DROP CONSTRAINT "refused by ${url}"`);
    untilRetry(clock, deposit!);
    expect(await watcher.tick()).toBe(1);
  });
});
