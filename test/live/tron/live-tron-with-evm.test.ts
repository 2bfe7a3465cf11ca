import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EvmXpub } from '../../../src/providers/chains/evm-xpub.js';
import { TronXpub } from '../../../src/providers/chains/tron/xpub.js';
import { TEST_CONFIRMATIONS, TEST_XPUB, watcherFor } from '../../support/evm/live-app.js';
import { accountsOf, createAddress, createIntent, createTenant, errorOf, json, type TransactionObject } from '../../support/partner.js';
import { useLiveTron } from '../../support/tron/live-app.js';
import { TEST_TRON_XPUB } from '../../support/tron/xpub.js';

// One anvil serves both networks: the test catalog names its chain id for ethereum and for tron.
const chain = useLiveTron({ withEthereum: true });

async function transactionsOf(key: string): Promise<TransactionObject[]> {
  return json<{ data: TransactionObject[] }>(await chain.t.call(key, 'GET', '/transactions')).data;
}

describe('live EVM and Tron on one deployment', () => {
  it('live keys are offered both families\' networks', async () => {
    const caps = json<{ networks: { code: string }[] }>(await chain.t.call(chain.live.key, 'GET', '/capabilities'));
    expect(caps.networks.map((n) => n.code).sort()).toEqual(['ethereum', 'tron']);
  });

  it('a live USDT intent gets a 0x address from the EVM xpub and a T… address from the Tron xpub, each on its own counter', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { currencies: ['USDT'] });
    const byNetwork = Object.fromEntries(intent.addresses.map((a) => [a.network, a.address]));
    expect(Object.keys(byNetwork).sort()).toEqual(['ethereum', 'tron']);
    const derived = await chain.t.db.query<{ family: string; derivation_index: string; address: string }>(
      'SELECT family, derivation_index::text AS derivation_index, address FROM derived_addresses WHERE address = ANY($1::text[]) ORDER BY family',
      [Object.values(byNetwork)],
    );
    expect(derived.map((row) => row.family)).toEqual(['evm', 'tron']);
    expect(EvmXpub.parse(TEST_XPUB).address(Number(derived[0]!.derivation_index))).toBe(byNetwork.ethereum);
    expect(TronXpub.parse(TEST_TRON_XPUB).address(Number(derived[1]!.derivation_index))).toBe(byNetwork.tron);
  });

  it('each network\'s deposits are credited by its own watcher, and only on the network the address was minted for', async () => {
    const eth = await createAddress(chain.t, chain.live.key, { asset: 'ETH', network: 'ethereum' });
    const trx = await createAddress(chain.t, chain.live.key, { asset: 'TRX', network: 'tron' });
    const ethereumWatcher = watcherFor(chain.t, chain.ethereum);
    await ethereumWatcher.tick(); // its first tick starts at the head
    const ethHash = await chain.anvil.sendEth(eth.address, '0.25');
    const trxId = await chain.sendTrx(trx.address, '3');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    await ethereumWatcher.tick();
    await chain.watcher().tick();
    // The Tron watcher read the ETH transfer too (same anvil), as a bare id: it is nobody's Tron deposit.
    const rows = (await transactionsOf(chain.live.key)).filter((tx) => [ethHash, ethHash.slice(2), trxId].includes(tx.tx_hash!));
    expect(rows.map((tx) => `${tx.network}:${tx.asset}:${tx.amount}:${tx.status}`).sort()).toEqual(['ethereum:ETH:0.25:confirmed', 'tron:TRX:3:confirmed']);
  });

  it('without a Tron hot wallet, a live Tron payout is refused 503 naming its settings, before anything is reserved, on a deployment whose EVM payouts are on', async () => {
    const tenant = await createTenant(chain.t, { mode: 'live' });
    const address = await createAddress(chain.t, tenant.key, { asset: 'TRX', network: 'tron' });
    await chain.sendTrx(address.address, '50');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await chain.watcher().tick()).toBe(1);
    const res = await chain.t.call(tenant.key, 'POST', '/payouts/quote', {
      body: { asset: 'TRX', amount: '10', destination: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', network_hint: 'tron' },
      idempotencyKey: randomUUID(),
    });
    expect(res.statusCode, res.body).toBe(503);
    expect(errorOf(res)).toMatchObject({ code: 'provider_unavailable' });
    expect(errorOf(res).message).toContain('Live payouts on tron need a payout signer');
    expect(errorOf(res).message).toContain('CONNECT_TRON_SIGNER_KEY or CONNECT_TRON_SIGNER_KEY_FILE');
    expect(await accountsOf(chain.t, tenant.organizationId, 'live')).toContainEqual(expect.objectContaining({ asset: 'TRX', network: 'tron', balance: '50' }));
  });

  it('/readyz lists both families\' networks and watchers', async () => {
    const live = JSON.parse((await chain.t.app.inject({ method: 'GET', url: '/readyz' })).body).live;
    const origin = new URL(chain.anvil.url).origin;
    expect(live).toMatchObject({ networks: { ethereum: origin, tron: origin }, watchers: ['ethereum', 'tron'] });
  });
});
