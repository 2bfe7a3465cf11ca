import type { Static } from 'typebox';
import { parseUnits, type Hex } from 'viem';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LivePayoutDetail, LivePayoutSummary } from '../../../src/routes/admin/payouts.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { TestApp } from '../../support/app.js';
import type { Anvil } from '../../support/evm/anvil.js';
import { HOT_WALLET, quiet, TEST_CONFIRMATIONS, type WatchedNetwork } from '../../support/evm/live-app.js';
import { livePayoutKit, useLivePayoutWorld } from '../../support/evm/live-payouts.js';
import { form, signInOperator } from '../../support/dashboard.js';
import { createAddress, createTenant, errorOf, eventsInOrder, json, simulateAddress, walkPages } from '../../support/partner.js';

type Detail = Static<typeof LivePayoutDetail>;
type Summary = Static<typeof LivePayoutSummary>;

/** While set, a new live payout's first attempt never runs, as if its process died right after the commit. */
let holdFirstAttempt = false;
const world = useLivePayoutWorld({
  atPayoutBoundary: (boundary) => (boundary === 'reserved' && holdFirstAttempt ? new Promise<void>(() => {}) : Promise.resolve()),
});
const { fundedTenant, pay, statusOf, reaches, tokenBalance, available, stuckPayout, restoreMining, freshDestination } = livePayoutKit(world);
let anvil: Anvil;
let ethereum: WatchedNetwork;
let t: TestApp;
beforeAll(() => {
  ({ anvil, ethereum, t } = world);
});
afterEach(restoreMining);

const operatorView = async (id: string) => {
  const res = await t.admin('GET', `/payouts/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return json<Detail>(res);
};
const cancel = (id: string) => t.admin('POST', `/payouts/${id}/cancel`);

/** A payout reserved and recorded, whose first attempt never ran: it holds no nonce and nothing is signed. */
async function heldPayout(key: string) {
  holdFirstAttempt = true;
  try {
    return await pay(key, freshDestination(), '5');
  } finally {
    holdFirstAttempt = false;
  }
}

/** The process holding the payout's lease died: the lease lapses, as time passing would. */
const lapseLease = (payoutId: string) => t.db.query("UPDATE payouts SET next_attempt_at = now() - interval '1 second' WHERE id = $1", [payoutId]);

describe('cancelling a stuck live payout', () => {
  it('a zero-value transfer to the hot wallet replaces it at its nonce; the payout fails, its funds released, only once that is mined with its confirmations', async () => {
    const { tenant, destination, payout, original, cap } = await stuckPayout((stuck) => stuck.maxFeePerGas! * 2n);
    const reserved = await available(tenant.organizationId);

    const asked = await cancel(payout.id);
    expect(asked.statusCode, asked.body).toBe(202);
    expect(json<Detail>(asked)).toMatchObject({
      id: payout.id,
      status: 'processing',
      organization_id: tenant.organizationId,
      mode: 'live',
      engine: { cancel_requested_at: expect.any(String), lease_held: false },
      chain: { nonce: original.nonce, status: 'broadcast', fee_cap_wei: cap.toString(), tx_hash: original.hash, purpose: 'payout' },
    });

    await t.ctx.outbound.sweep(quiet);
    const cancelling = await operatorView(payout.id);
    expect(cancelling.chain).toMatchObject({ nonce: original.nonce, purpose: 'cancel' });
    const cancellation = await anvil.client.getTransaction({ hash: cancelling.chain!.tx_hash as Hex });
    expect(cancellation).toMatchObject({ nonce: original.nonce, value: 0n, blockNumber: null });
    expect(cancellation.to?.toLowerCase()).toBe(HOT_WALLET.toLowerCase());
    expect(cancellation.gas * cancellation.maxFeePerGas! <= cap).toBe(true);
    expect(cancelling.chain!.transactions).toEqual([
      {
        tx_hash: cancellation.hash,
        purpose: 'cancel',
        max_fee_per_gas: cancellation.maxFeePerGas!.toString(),
        max_priority_fee_per_gas: cancellation.maxPriorityFeePerGas!.toString(),
        gas: '21000',
      },
      {
        tx_hash: original.hash,
        purpose: 'payout',
        max_fee_per_gas: original.maxFeePerGas!.toString(),
        max_priority_fee_per_gas: original.maxPriorityFeePerGas!.toString(),
        gas: original.gas.toString(),
      },
    ]);
    // Sent, not mined: the payout is still open and its funds still reserved.
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    expect(await available(tenant.organizationId)).toBe(reserved);

    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.outbound.sweep(quiet)).toBe(1);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({
      status: 'failed',
      failure_reason: `Cancelled: ${cancellation.hash} was mined at the payout's nonce ${original.nonce} instead of its transfer; nothing was sent.`,
    });
    expect(await available(tenant.organizationId)).toBe('30');
    expect(await tokenBalance(destination)).toBe(0n);
    expect((await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.failed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
    expect((await operatorView(payout.id)).chain).toMatchObject({ tx_hash: cancellation.hash, purpose: 'cancel' });
  });

  it('a payout cancelled from the dashboard whose own transfer is mined before its cancellation completes: the cancellation loses', async () => {
    const { tenant, destination, payout, original } = await stuckPayout((stuck) => stuck.maxFeePerGas! * 2n);
    const [signed] = await t.db.query<{ raw: Hex }>('SELECT raw FROM evm_signed_txs WHERE tx_hash = $1', [original.hash]);
    const page = `/admin/payouts/${payout.id}`;
    const operator = await signInOperator(t);
    const asked = await operator.submit(page, `${page}/cancel`);
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe(page);
    const after = (await operator.get(page)).body;
    expect(after).toMatch(/<dt>Cancel requested<\/dt><dd><time/);
    expect(after).not.toContain('Cancel payout');
    await t.ctx.outbound.sweep(quiet);
    const cancellationHash = (await operatorView(payout.id)).chain!.tx_hash as Hex;
    expect(cancellationHash).not.toBe(original.hash);

    // The node loses the cancellation and mines the transfer after all (fees fell back).
    await anvil.client.dropTransaction({ hash: cancellationHash });
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: 1n });
    await anvil.mine(1);
    await anvil.client.sendRawTransaction({ serializedTransaction: signed!.raw });
    await anvil.mine(TEST_CONFIRMATIONS);

    expect(await t.ctx.outbound.sweep(quiet)).toBe(1);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'completed', tx_hash: original.hash });
    expect(await tokenBalance(destination)).toBe(parseUnits('10', 6));
    expect((await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.completed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('a payout with nothing signed fails at its next attempt with its funds released, and takes no nonce', async () => {
    const tenant = await fundedTenant('20');
    const payout = await heldPayout(tenant.key);
    const asked = await cancel(payout.id);
    expect(asked.statusCode, asked.body).toBe(202);
    expect(json<Detail>(asked)).toMatchObject({ status: 'pending', engine: { attempts: 0, lease_held: true, cancel_requested_at: expect.any(String) }, chain: null });

    await lapseLease(payout.id);
    expect(await t.ctx.outbound.sweep(quiet)).toBe(1);
    expect(await statusOf(tenant.key, payout.id)).toMatchObject({ status: 'failed', failure_reason: 'Cancelled by the operator before anything was signed.' });
    expect(await available(tenant.organizationId)).toBe('20');
    expect(await operatorView(payout.id)).toMatchObject({ status: 'failed', engine: { attempts: 1, lease_held: false }, chain: null });
    expect(await t.db.query('SELECT 1 FROM evm_payout_txs WHERE payout_id = $1', [payout.id])).toEqual([]);
    expect((await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.failed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('only an open live payout can be cancelled: 409 invalid_state once it is settled; 404 for an unknown id and for a sandbox payout', async () => {
    const tenant = await fundedTenant('20');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const done = await pay(tenant.key, freshDestination(), '5');
    await reaches(tenant.key, done.id, 'processing');
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(quiet);
    const settled = await cancel(done.id);
    expect(settled.statusCode).toBe(409);
    expect(errorOf(settled)).toMatchObject({ code: 'invalid_state', param: 'payout_id' });
    expect((await operatorView(done.id)).engine.cancel_requested_at).toBeNull();

    const sandbox = await createTenant(t);
    const address = await createAddress(t, sandbox.key, { asset: 'USDC', network: 'ethereum' });
    await simulateAddress(t, sandbox.key, address.id, '20');
    const sandboxPayout = await pay(sandbox.key, freshDestination(), '5');
    for (const id of [sandboxPayout.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      for (const res of [await t.admin('GET', `/payouts/${id}`), await cancel(id)]) {
        expect(res.statusCode, id).toBe(404);
        expect(errorOf(res)).toMatchObject({ code: 'resource_not_found', param: 'payout_id' });
      }
    }
  });
});

describe('listing open live payouts', () => {
  const listAll = async (query: string) => {
    const pages = await walkPages(async (cursor) => {
      const res = await t.admin('GET', `/payouts?limit=1${query}${cursor}`);
      expect(res.statusCode, res.body).toBe(200);
      return json<{ data: Summary[]; cursor: string | null }>(res);
    });
    return pages.flatMap((page) => page.data);
  };

  it("lists every organization's open live payouts oldest first, one page at a time, and filters by status and network; settled ones drop out", async () => {
    const first = await heldPayout((await fundedTenant('10')).key);
    const second = await heldPayout((await fundedTenant('10')).key);
    const open = await listAll('&status=pending,processing&network=ethereum');
    const ours = open.filter((p) => p.id === first.id || p.id === second.id);
    expect(ours.map((p) => p.id)).toEqual([first.id, second.id]);
    expect(ours[0]).toMatchObject({ status: 'pending', mode: 'live', engine: { attempts: 0, lease_held: true, last_error: null, cancel_requested_at: null } });
    expect((await listAll('&status=processing')).map((p) => p.id)).not.toContain(first.id);
    expect((await listAll('&network=base')).map((p) => p.id)).not.toContain(first.id);

    const refused = [await t.admin('GET', '/payouts?status=completed'), await t.admin('GET', '/payouts?network=atlantis')];
    expect(refused.map((res) => [res.statusCode, errorOf(res).code, errorOf(res).param])).toEqual([
      [400, 'invalid_request', 'status'],
      [400, 'catalog_invalid', 'network'],
    ]);

    for (const payout of [first, second]) {
      await cancel(payout.id);
      await lapseLease(payout.id);
    }
    await t.ctx.outbound.sweep(quiet);
    const left = (await listAll('')).map((p) => p.id);
    expect(left).not.toContain(first.id);
    expect(left).not.toContain(second.id);
  });
});

describe('the dashboard', () => {
  it("lists open live payouts linked to their page, which shows the engine state and every transaction signed at the nonce with its fees; its Cancel form needs the session's CSRF token", async () => {
    const { payout, original, cap } = await stuckPayout((stuck) => stuck.maxFeePerGas! * 2n);
    const operator = await signInOperator(t);
    const page = `/admin/payouts/${payout.id}`;
    const list = await operator.get('/admin/payouts');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`href="${page}"`);
    expect((await operator.get('/admin/overview')).body).toContain('href="/admin/payouts">Open live payouts</a>');

    const shown = await operator.get(page);
    expect(shown.statusCode).toBe(200);
    for (const fact of [`<dt>Nonce</dt><dd>${original.nonce}</dd>`, `<dt>Fee cap (wei)</dt><dd>${cap}</dd>`, `<dt>Attempts</dt><dd>`]) expect(shown.body).toContain(fact);
    expect(shown.body).toMatch(
      new RegExp(`<td><code>${original.hash}</code></td><td>payout</td><td class="num">${original.maxFeePerGas}</td><td class="num">${original.maxPriorityFeePerGas}</td><td class="num">${original.gas}</td>`),
    );
    expect(shown.body).toContain('Cancel payout');

    const { payload, headers } = form({ _csrf: 'forged' });
    const forged = await t.app.inject({ method: 'POST', url: `${page}/cancel`, payload, headers: { ...headers, cookie: operator.cookie } });
    expect(forged.statusCode).toBe(403);
    expect((await operatorView(payout.id)).engine.cancel_requested_at).toBeNull();
    expect((await operator.get('/admin/payouts/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
  });
});
