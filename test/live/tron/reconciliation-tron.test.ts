import { describe, expect, it } from 'vitest';
import type { ReconciliationAnswer } from '../../../src/routes/admin/reconciliation.js';
import { TEST_CONFIRMATIONS } from '../../support/evm/live-app.js';
import { createAddress, createIntent, json } from '../../support/partner.js';
import { useLiveTron } from '../../support/tron/live-app.js';

const chain = useLiveTron();

async function reconcileTron(): Promise<Map<string, ReconciliationAnswer['data'][number]>> {
  const res = await chain.t.admin('POST', '/reconciliation?network=tron');
  expect(res.statusCode, res.body).toBe(200);
  return new Map(json<ReconciliationAnswer>(res).data.map((line) => [line.asset, line]));
}

describe('the Tron chain reconciled against the ledger (anvil as the node\'s JSON-RPC)', () => {
  it('credited TRC-20 and TRX deposits reconcile ok, read at their T… addresses; a deployment without a Tron signer has no hot wallet', async () => {
    const usdt = (await createIntent(chain.t, chain.live.key, { amount: '7', currencies: ['USDT'] })).addresses[0]!.address;
    const trx = (await createAddress(chain.t, chain.live.key, { asset: 'TRX', network: 'tron' })).address;
    await chain.sendUsdt(usdt, '7');
    await chain.sendTrx(trx, '3.5');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await chain.watcher().tick()).toBe(2);

    const lines = await reconcileTron();
    expect(lines.get('USDT')).toMatchObject({ status: 'ok', on_chain_total: '7', ledger_total: '7', drift: '0', hot_wallet: null, addresses: [] });
    expect(lines.get('TRX')).toMatchObject({ status: 'ok', on_chain_total: '3.5', ledger_total: '3.5', drift: '0', addresses: [] });
  });

  it('USDT sent to an address handed out for TRX is a surplus naming it, in its T… form', async () => {
    const trx = (await createAddress(chain.t, chain.live.key, { asset: 'TRX', network: 'tron' })).address;
    await chain.sendUsdt(trx, '2');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    await chain.watcher().tick();

    const usdt = (await reconcileTron()).get('USDT')!;
    expect(usdt).toMatchObject({ status: 'surplus', drift: '2' });
    expect(usdt.addresses).toEqual([
      { address: trx, organization_ids: [chain.live.organizationId], on_chain: '2', credited: '0', pending: '0', drift: '2', reason: 'uncredited' },
    ]);
  });
});
