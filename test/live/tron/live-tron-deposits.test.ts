import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/clock.js';
import { tronAddressFromEvmHex } from '../../../src/providers/chains/tron/address.js';
import { tronTransactionKind } from '../../../src/providers/chains/tron/http-api.js';
import { tronChainReader } from '../../../src/providers/chains/tron/json-rpc-reader.js';
import { TronXpub } from '../../../src/providers/chains/tron/xpub.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import { startAnvil } from '../../support/evm/anvil.js';
import { TEST_CONFIRMATIONS, watcherFor } from '../../support/evm/live-app.js';
import { countRows, createAddress, createIntent, eventsInOrder, getIntent, json, type TransactionObject } from '../../support/partner.js';
import { TRON_CHAIN_ID, useLiveTron } from '../../support/tron/live-app.js';
import { TEST_TRON_XPUB } from '../../support/tron/xpub.js';

const chain = useLiveTron();

/** What a mint's Transfer log names as sender: 20 zero bytes, Tron's zero address. */
const TRON_ZERO_ADDRESS = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';

async function byHash(hash: string, key = chain.live.key): Promise<TransactionObject[]> {
  const res = await chain.t.call(key, 'GET', '/transactions');
  expect(res.statusCode, res.body).toBe(200);
  return json<{ data: TransactionObject[] }>(res).data.filter((tx) => tx.tx_hash === hash);
}

describe('live Tron deposit addresses', () => {
  it('live keys are offered Tron, and only Tron, when only its watcher is configured', async () => {
    const caps = json<{ networks: { code: string; chain_id: number }[]; assets: { code: string }[] }>(await chain.t.call(chain.live.key, 'GET', '/capabilities'));
    expect(caps.networks).toMatchObject([{ code: 'tron', chain_id: TRON_CHAIN_ID }]);
    expect(caps.assets.map((a) => a.code).sort()).toEqual(['TRX', 'USDT']);
  });

  it('each live Tron address is the Tron xpub\'s next index on its own counter, in T… form; concurrent creations never share one', async () => {
    const xpub = TronXpub.parse(TEST_TRON_XPUB);
    const intents = await Promise.all(Array.from({ length: 6 }, () => createIntent(chain.t, chain.live.key, { currencies: ['USDT', 'TRX'] })));
    const addresses = intents.flatMap((i) => i.addresses);
    expect(addresses.every((a) => a.network === 'tron' && /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(a.address))).toBe(true);
    expect(new Set(addresses.map((a) => a.address)).size).toBe(addresses.length);
    const derived = await chain.t.db.query<{ family: string; derivation_index: string; address: string }>(
      'SELECT family, derivation_index::text AS derivation_index, address FROM derived_addresses WHERE address = ANY($1::text[])',
      [addresses.map((a) => a.address)],
    );
    expect(derived).toHaveLength(addresses.length);
    for (const row of derived) {
      expect(row.family).toBe('tron');
      expect(xpub.address(Number(row.derivation_index))).toBe(row.address);
    }
  });
});

describe('the Tron watcher credits deposits after their confirmations', () => {
  it('a TRC-20 transfer to the address is pending until the Nth block, then credited once, with T… addresses and the bare transaction id', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { amount: '10', currencies: ['USDT'] });
    const to = intent.addresses[0]!.address;
    const txId = await chain.sendUsdt(to, '4');
    expect(txId).toMatch(/^[0-9a-f]{64}$/);
    await chain.anvil.mine(TEST_CONFIRMATIONS - 2);
    expect(await chain.watcher().tick()).toBe(0);
    expect(await byHash(txId)).toMatchObject([{ status: 'pending', amount: '4', network: 'tron', to_address: to, from_address: TRON_ZERO_ADDRESS }]);

    await chain.anvil.mine(1);
    expect(await chain.watcher().tick()).toBe(1);
    expect(await chain.watcher().tick()).toBe(0);
    expect(await byHash(txId)).toMatchObject([{ status: 'confirmed', asset: 'USDT', amount: '4', to_address: to, payment_intent_id: intent.id }]);
    expect(await getIntent(chain.t, chain.live.key, intent.id)).toMatchObject({ status: 'pending', amount_received: 4 });
    expect(await countRows(chain.t, 'SELECT 1 FROM ledger_transfers WHERE cause LIKE $1', [`%${txId}%`])).toBe(1);
    expect((await eventsInOrder(chain.t, chain.live.key, intent.id)).map((e) => e.type)).toEqual(['payment_intent.payment_received']);
  });

  it('a TRX transfer (native, 6 decimals) to a standalone address is credited after its confirmations', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'TRX', network: 'tron' });
    const txId = await chain.sendTrx(address.address, '2.5');
    expect(await chain.watcher().tick()).toBe(0);
    await chain.anvil.mine(TEST_CONFIRMATIONS - 1);
    expect(await chain.watcher().tick()).toBe(1);
    const [funder] = await chain.anvil.client.getAddresses();
    expect(await byHash(txId)).toMatchObject([{ status: 'confirmed', asset: 'TRX', amount: '2.5', to_address: address.address, from_address: tronAddressFromEvmHex(funder!) }]);
    expect((await eventsInOrder(chain.t, chain.live.key, address.id)).map((e) => e.type)).toEqual(['address.deposit.received']);
  });

  it('a TRC-10 transfer, which Tron\'s JSON-RPC reports as a TRX one, is not credited: the HTTP API says what it moved', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'TRX', network: 'tron' });
    const txId = await chain.sendTrx(address.address, '1000');
    chain.httpApi.kinds.set(txId, 'TransferAssetContract');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await chain.watcher().tick()).toBe(0);
    expect(chain.httpApi.asked).toContain(txId);
    expect(await byHash(txId)).toEqual([]);
  });

  it('a TRX transfer the HTTP API does not know yet fails the tick, which reads it again and credits it once the API knows it', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'TRX', network: 'tron' });
    const txId = await chain.sendTrx(address.address, '4');
    chain.httpApi.kinds.set(txId, null);
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    await expect(chain.watcher().tick()).rejects.toThrow('Tron HTTP API does not know transaction');
    expect(await byHash(txId)).toEqual([]);
    chain.httpApi.kinds.delete(txId);
    expect(await chain.watcher().tick()).toBe(1);
    expect(await byHash(txId)).toMatchObject([{ status: 'confirmed', asset: 'TRX', amount: '4' }]);
  });

  it('a transfer in another asset than the address was minted for is not credited (TRX to a USDT address, USDT to a TRX address)', async () => {
    const usdtAddress = await createAddress(chain.t, chain.live.key, { asset: 'USDT', network: 'tron' });
    const trxAddress = await createAddress(chain.t, chain.live.key, { asset: 'TRX', network: 'tron' });
    const wrong = [await chain.sendTrx(usdtAddress.address, '1'), await chain.sendUsdt(trxAddress.address, '1')];
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await chain.watcher().tick()).toBe(0);
    for (const txId of wrong) expect(await byHash(txId)).toEqual([]);
  });

  it('a restarted watcher resumes from its cursor: a deposit seen before the restart is credited once, nothing is read twice', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'USDT', network: 'tron' });
    const txId = await chain.sendUsdt(address.address, '3');
    expect(await chain.watcher().tick()).toBe(0);
    const [before] = await chain.t.db.query<{ next_block: string }>("SELECT next_block::text AS next_block FROM chain_cursors WHERE network = 'tron'");
    expect(BigInt(before!.next_block)).toBe((await chain.anvil.client.getBlockNumber()) + 1n);
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    // Every watcher below is a new one, as after a restart: they know only the database.
    expect(await chain.watcher().tick()).toBe(1);
    expect(await chain.watcher().tick()).toBe(0);
    expect(await byHash(txId)).toMatchObject([{ status: 'confirmed', amount: '3' }]);
    expect(await countRows(chain.t, "SELECT 1 FROM chain_deposits WHERE network = 'tron' AND tx_hash = $1", [txId])).toBe(1);
  });
});

describe('reorganizations and the endpoint, as on EVM', () => {
  it('a block that vanishes before its deposit has its confirmations leaves no credit; the row is failed', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'USDT', network: 'tron' });
    const snapshot = await chain.anvil.client.snapshot();
    const txId = await chain.sendUsdt(address.address, '5');
    expect(await chain.watcher().tick()).toBe(0);
    expect(await byHash(txId)).toMatchObject([{ status: 'pending' }]);

    await chain.anvil.client.revert({ id: snapshot });
    await chain.anvil.mine(TEST_CONFIRMATIONS + 2);
    await chain.watcher().tick(); // finds the fork and rewinds
    expect(await chain.watcher().tick()).toBe(0);
    expect(await byHash(txId)).toMatchObject([{ status: 'failed' }]);
    expect(await countRows(chain.t, 'SELECT 1 FROM ledger_transfers WHERE cause LIKE $1', [`%${txId}%`])).toBe(0);
  });

  it('a reorganization deeper than the confirmations reverses the credit (deposit.reversed) and the ledger still balances', async () => {
    const address = await createAddress(chain.t, chain.live.key, { asset: 'TRX', network: 'tron' });
    const snapshot = await chain.anvil.client.snapshot();
    const txId = await chain.sendTrx(address.address, '7');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await chain.watcher().tick()).toBe(1);

    await chain.anvil.client.revert({ id: snapshot });
    await chain.anvil.mine(TEST_CONFIRMATIONS + 3);
    const clock = new ManualClock();
    await chain.watcher(clock).tick(); // the fork, seen once below a credited deposit: recorded, nothing reversed
    expect(await byHash(txId)).toMatchObject([{ status: 'confirmed' }]);
    clock.advance(60_000);
    await chain.watcher(clock).tick(); // seen again a minute later: the credit is reversed and the blocks read again
    expect(await chain.watcher(clock).tick()).toBe(0);
    expect(await byHash(txId)).toMatchObject([{ status: 'failed' }]);
    const events = await eventsInOrder(chain.t, chain.live.key, address.id);
    expect(events.map((e) => e.type)).toEqual(['address.deposit.received', 'deposit.reversed']);
    expect(events[1]!.data).toMatchObject({ amount: '7', hash: txId, reason: 'reorganization' });
    expect((await verifyLedger(chain.t.db)).ok).toBe(true);
  });

  it('an endpoint serving another chain than the catalog\'s Tron is refused: the watcher reads nothing', async () => {
    const other = await startAnvil();
    try {
      const watcher = watcherFor(chain.t, chain.tron, { chain: tronChainReader(other.url, tronTransactionKind(chain.httpApi.url)) });
      await expect(watcher.tick()).rejects.toThrow(`tron: the RPC URL serves chain ${other.chainId}, not ${TRON_CHAIN_ID}`);
    } finally {
      await other.close();
    }
  });
});
