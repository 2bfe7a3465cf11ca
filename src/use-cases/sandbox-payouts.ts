import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { canMove, isTerminal, type PayoutKind } from '../domain/payouts.js';
import { tenantOf, type Tenant } from '../domain/tenancy.js';
import type { SweepLog } from '../outbound/engine.js';
import { simulatedTxHash } from '../providers/chains/sandbox-chain.js';
import type { Database } from '../store/database.js';
import * as store from '../store/payouts.js';
import type { PayoutRow } from '../store/payouts.js';
import type { PayoutSettlement } from './payout-settlement.js';

/** How far the sandbox sweep puts back the delivery of a payout it failed to move. */
const SANDBOX_RETRY_SECONDS = 60;

/**
 * Sandbox payouts and refunds never leave the service: the sandbox's own progress moves them along (processing,
 * then completed at their delivery time), and the simulate helper drives one to an outcome now.
 */
export class SandboxPayouts {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    private readonly settlement: PayoutSettlement,
  ) {}

  /** Drives a payout (or a refund) to an outcome now; a move backward or out of a terminal state is refused. */
  async simulate(tenant: Tenant, id: string, outcome: 'completed' | 'failed', kind: PayoutKind = 'payout'): Promise<PayoutRow> {
    return this.db.transaction(async (tx) => {
      const payout = isUuid(id) ? await store.findPayout(tx, tenant, id, true, kind) : null;
      if (!payout) throw notFound(kind);
      if (!canMove(payout.status, outcome)) throw new PayoutStateConflict(payout, outcome);
      return outcome === 'completed'
        ? this.settlement.complete(tx, tenant, payout, this.txHash(payout))
        : this.settlement.fail(tx, tenant, payout, 'Failed on request (sandbox simulation).');
    });
  }

  private txHash(payout: PayoutRow): string {
    return simulatedTxHash(this.catalog.addressFormat(payout.network), `payout:${payout.id}`);
  }

  /**
   * One sweep of the sandbox's own progress: open payouts move to processing, and those whose delivery time
   * has come complete. One transaction per payout, so a sweep never holds an owner's reserved funds locked
   * for long (executions credit them); rows are claimed with SKIP LOCKED, so instances sweep side by side.
   * A payout that fails to move is logged and skipped, so it does not hold up everybody else's, and its delivery
   * is put back a minute, so it is not the first one tried at every sweep. Answers how many moves were made.
   */
  async advance(log: SweepLog, limit = 200): Promise<number> {
    const now = this.clock.now();
    const skipped: string[] = [];
    let moved = 0;
    while (moved < limit) {
      // Set by the transaction, so that a failure can name the payout it was moving.
      const attempt: { payout?: PayoutRow } = {};
      try {
        const found = await this.db.transaction(async (tx) => {
          [attempt.payout] = await store.claimOpenSandboxPayouts(tx, now, 1, skipped);
          const payout = attempt.payout;
          if (!payout) return false;
          const tenant = tenantOf({ organizationId: payout.organization_id, mode: payout.mode });
          if (payout.estimated_delivery_at.getTime() <= now.getTime()) await this.settlement.complete(tx, tenant, payout, this.txHash(payout));
          else await store.updatePayoutStatus(tx, tenant, payout.id, { status: 'processing' }, now);
          return true;
        });
        if (!found) break;
        moved++;
      } catch (err) {
        // Nothing claimed: the database itself failed, and the next sweep tries again.
        if (!attempt.payout) throw err;
        const { id, organization_id: organizationId, mode } = attempt.payout;
        skipped.push(id);
        const retryAt = new Date(now.getTime() + SANDBOX_RETRY_SECONDS * 1000);
        const postponed = await store.postponeSandboxPayout(this.db, tenantOf({ organizationId, mode }), id, retryAt, now).then(
          () => true,
          () => false,
        );
        log.error(
          { err, payoutId: id, organizationId },
          `sandbox payout ${id}: could not move it on; skipped, ${postponed ? `tried again from ${retryAt.toISOString()}` : 'and it could not be put back either'}`,
        );
      }
    }
    return moved;
  }
}

/** 409 invalid_state, carrying the payout as it is (the route shows it beside the error). */
export class PayoutStateConflict extends DomainError {
  constructor(
    readonly payout: PayoutRow,
    outcome: string,
  ) {
    super('invalid_state', `This ${payout.kind} is ${payout.status}${isTerminal(payout.status) ? ' (final)' : ''}; it cannot become ${outcome}.`, 'outcome');
  }
}
