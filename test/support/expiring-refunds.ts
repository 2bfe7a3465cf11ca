import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import type { PayoutBoundary } from '../../src/outbound/outcomes.js';
import type { Refund, RefundQuote } from '../../src/http/resources/refund.js';
import { verifyLedger } from '../../src/use-cases/ledger.js';
import { leaseLapses, type crashPoints } from './crash-points.js';
import { ENDPOINTS, type ExpiringChainRig } from './expiring-crash-points.js';
import { createTenant, creditDirect, eventsInOrder, extraKey, getIntent, insertLiveIntent, json } from './partner.js';

type RefundObject = Static<typeof Refund>;
type LiveIntent = { key: string; organizationId: string; intentId: string };

/**
 * Live refunds on a chain without nonces (docs/refunds.md: a refund is a payout of kind refund): quoted and
 * executed through the partner API, worked by the same expiring-payout engine under the same leases, with the
 * same closed outcomes. One transfer of `recipient_gets` when it lands; on proof that nothing can land, the
 * refund fails, its funds go back and its room on the intent with them.
 */
export function expiringRefundSuite(rig: ExpiringChainRig, crash: ReturnType<typeof crashPoints>): void {
  const { world, kit, asset, network } = rig;
  const { sweep, sweepUntilExpired, available, lastError, recorded } = kit;
  const units = (amount: string) => BigInt(new Decimal(amount).times(1_000_000).toFixed(0));

  afterEach(() => {
    crash.reset();
    rig.dropSends(false);
    rig.lag(false);
  });

  /** A live 10 `asset` intent on the rig's network that its payer paid `paid` (credited as the chain's watcher would). */
  async function paidIntent(paid: string): Promise<LiveIntent> {
    const { organizationId } = await createTenant(world.t);
    const key = await extraKey(world.t, organizationId, 'live');
    const intent = await insertLiveIntent(world.t, organizationId, { asset, network });
    await creditDirect(world.t, organizationId, { addressId: intent.addressId, network, amount: paid }, 'live');
    return { key, organizationId, intentId: intent.id };
  }

  async function quote(paid: LiveIntent, body: Record<string, unknown>) {
    return world.t.call(paid.key, 'POST', `/payment-intents/${paid.intentId}/refunds/quote`, { body, idempotencyKey: randomUUID() });
  }

  async function refundOf(paid: LiveIntent, body: Record<string, unknown>): Promise<RefundObject> {
    const quoted = await quote(paid, body);
    expect(quoted.statusCode, quoted.body).toBe(201);
    const res = await world.t.call(paid.key, 'POST', '/refunds', { body: { quote_id: json<Static<typeof RefundQuote>>(quoted).quote_id }, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    return json<RefundObject>(res);
  }

  const statusOf = async (key: string, id: string) => json<RefundObject>(await world.t.call(key, 'GET', `/refunds/${id}`));
  /** Its first attempt, run after the executing request's commit under its own lease, has sent it. */
  const sent = (key: string, id: string) => expect.poll(async () => (await statusOf(key, id)).status, { timeout: 20_000 }).toBe('processing');

  /** Blocks and sweeps until the refund is settled; its final state. */
  async function settled(key: string, id: string): Promise<RefundObject> {
    for (let round = 0; round < 16; round++) {
      rig.finalize();
      await sweep();
      const refund = await statusOf(key, id);
      if (refund.status === 'completed' || refund.status === 'failed') return refund;
    }
    throw new Error(`refund ${id} is still open after 16 sweeps: ${await lastError(id)}`);
  }

  /** What the organization's fees account holds of the asset on the network. */
  async function feesHeld(organizationId: string): Promise<string> {
    const [row] = await world.t.db.query<{ balance: string }>(
      "SELECT coalesce(sum(balance), 0)::text AS balance FROM ledger_accounts WHERE organization_id = $1 AND mode = 'live' AND kind = 'fees' AND asset = $2 AND network = $3",
      [organizationId, asset, network],
    );
    return new Decimal(row!.balance).toFixed();
  }

  const refundEvents = async (paid: LiveIntent) =>
    (await eventsInOrder(world.t, paid.key, paid.intentId)).filter((e) => e.type.startsWith('refund.')).map((e) => e.type);

  /** Completed with one landed transfer of recipient_gets, owner_pays gone from the balance, the fee in the fees account. */
  async function expectPaidOnce(paid: LiveIntent, done: RefundObject, before: string, destination: string) {
    expect(done.status).toBe('completed');
    expect(await rig.landed(done.id, destination)).toEqual([done.tx_hash]);
    expect(await rig.received(destination)).toBe(units(done.recipient_gets));
    expect(await available(paid.organizationId, asset)).toBe(new Decimal(before).minus(done.owner_pays).toFixed());
    expect(await feesHeld(paid.organizationId)).toBe(new Decimal(done.fee).toFixed());
    expect(await refundEvents(paid)).toEqual(['refund.created', 'refund.completed']);
    const rows = json<{ data: { status: string; amount: string; fee: string; tx_hash: string; refund: unknown }[] }>(await world.t.call(paid.key, 'GET', '/transactions?type=refund')).data;
    expect(rows).toMatchObject([{ status: 'confirmed', amount: done.owner_pays, fee: done.fee, tx_hash: done.tx_hash, refund: { id: done.id, payment_intent_id: paid.intentId } }]);
    expect((await verifyLedger(world.t.db)).ok).toBe(true);
  }

  describe.each(ENDPOINTS)('through $endpoint', ({ lagged }) => {
    beforeEach(() => rig.lag(lagged));

    describe(`live refunds on ${rig.chain}, through the expiring-payout engine`, () => {
      // Amounts above Tron's fee to an address holding no USDT (about 4.6 USDT here): a deducted refund must exceed its fee.
      it.each([
        { case: 'the overpaid part, fee deducted', paid: '20', body: { portion: 'excess', network_fee: 'deducted' }, amount: '10', discrepancy: { type: 'overpaid', status: 'refunded' } },
        { case: 'part of an exact payment, fee on top', paid: '10', body: { amount: '4', network_fee: 'on_top' }, amount: '4', discrepancy: null },
      ])('$case: one transfer of recipient_gets to the destination, completed, refund.completed on the intent, the ledger exact', async (c) => {
        const paid = await paidIntent(c.paid);
        const destination = await rig.freshDestination();
        const refund = await refundOf(paid, { ...c.body, destination });
        expect(refund).toMatchObject({ status: 'pending', network, asset, amount: c.amount });
        const fee = new Decimal(refund.fee);
        expect(fee.gt(0)).toBe(true);
        const split = c.body.network_fee === 'deducted' ? { recipient_gets: new Decimal(c.amount).minus(fee), owner_pays: new Decimal(c.amount) } : { recipient_gets: new Decimal(c.amount), owner_pays: fee.plus(c.amount) };
        expect(refund).toMatchObject({ recipient_gets: split.recipient_gets.toFixed(), owner_pays: split.owner_pays.toFixed() });

        await sent(paid.key, refund.id);
        const done = await settled(paid.key, refund.id);
        await expectPaidOnce(paid, done, c.paid, destination);
        const intent = await getIntent(world.t, paid.key, paid.intentId);
        expect(intent).toMatchObject({ status: 'completed', amount_refunded: Number(c.amount), refunds: [done] });
        expect(intent.discrepancy === null ? null : { type: intent.discrepancy.type, status: intent.discrepancy.status }).toEqual(c.discrepancy);
      });

      it.each<PayoutBoundary>(['signed', 'broadcast'])(
        'killed after %s, then taken over once its lease lapsed: exactly one transfer, completed once',
        async (boundary) => {
          const paid = await paidIntent('10');
          const destination = await rig.freshDestination();
          crash.stopAt(boundary);
          const refund = await refundOf(paid, { amount: '7', destination, network_fee: 'deducted' });
          await crash.stoppedThere(refund.id);
          // Until the dead process's lease lapses, nobody else touches the refund.
          await sweep();
          expect((await statusOf(paid.key, refund.id)).status).toBe('pending');

          await leaseLapses(world.t, refund.id);
          const done = await settled(paid.key, refund.id);
          await expectPaidOnce(paid, done, '10', destination);
        },
      );

      it('never landed, every transaction expired: not_sent fails the refund, its funds and its room on the intent come back', async () => {
        const paid = await paidIntent('10');
        const destination = await rig.freshDestination();
        rig.dropSends(true);
        const refund = await refundOf(paid, { amount: '7', destination, network_fee: 'deducted' });
        await sent(paid.key, refund.id);
        expect(await available(paid.organizationId, asset)).toBe('3');

        // Each sweep past the open transaction's deadline proves it expired and signs the next, up to the engine's limit.
        let done = refund;
        for (let round = 0; round < 5 && done.status !== 'failed'; round++) {
          const newest = (await recorded(refund.id)).at(-1)!;
          rig.passDeadlines([BigInt(newest.deadline)]);
          await sweepUntilExpired([refund.id]);
          done = await statusOf(paid.key, refund.id);
        }
        expect(done.status).toBe('failed');
        expect(done.failure_reason).toContain('expired unlanded');
        // The worlds sign at most three times; the failed refund keeps the newest hash sent, as a payout does (docs/refunds.md).
        const txs = await recorded(refund.id);
        expect(txs.map((tx) => tx.status)).toEqual(['expired', 'expired', 'expired']);
        expect(done.tx_hash).toBe(txs.at(-1)!.tx_id);
        expect(await rig.landed(refund.id, destination)).toEqual([]);
        expect(await rig.received(destination)).toBe(0n);
        expect(await available(paid.organizationId, asset)).toBe('10');
        expect(await feesHeld(paid.organizationId)).toBe('0');
        expect(await refundEvents(paid)).toEqual(['refund.created', 'refund.failed']);
        expect(await getIntent(world.t, paid.key, paid.intentId)).toMatchObject({ amount_refunded: 0, refunds: [done] });
        expect((await verifyLedger(world.t.db)).ok).toBe(true);

        // The failed refund counts for nothing: the whole payment can be refunded again.
        rig.dropSends(false);
        const again = await quote(paid, { amount: '10', destination, network_fee: 'deducted' });
        expect(again.statusCode, again.body).toBe(201);
        expect(json<Static<typeof RefundQuote>>(again)).toMatchObject({ amount: '10', refundable: '10' });
        expect(json<Static<typeof RefundQuote>>(again).insufficient_funds).toBeUndefined();
      });
    });
  });
}
