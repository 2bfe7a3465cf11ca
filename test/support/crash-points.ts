import { expect } from 'vitest';
import type { PayoutBoundary } from '../../src/outbound/outcomes.js';
import type { TestApp } from './app.js';

/**
 * Crash points of live payouts, whatever the chain: `atBoundary` (given to the app and the payout driver) stops a
 * payout's work dead at one step boundary, as a killed process stops (the hook never returns: nothing after it
 * runs, and it holds no database lock), or fails there as a lost database connection does.
 */
export function crashPoints() {
  const stop: { boundary: PayoutBoundary | null; payoutId: string | null; mode: 'die' | 'throw'; hit: string[] } = { boundary: null, payoutId: null, mode: 'die', hit: [] };
  const actions = new Map<PayoutBoundary, () => Promise<unknown>>();
  return {
    atBoundary: async (boundary: PayoutBoundary, payoutId: string): Promise<void> => {
      const action = actions.get(boundary);
      actions.delete(boundary);
      await action?.();
      if (boundary !== stop.boundary || (stop.payoutId !== null && payoutId !== stop.payoutId)) return;
      stop.boundary = null;
      stop.hit.push(payoutId);
      if (stop.mode === 'throw') throw new Error('the database connection was lost');
      return new Promise(() => {});
    },
    /** Arms the stop for the next payout to reach `boundary` (or only `payoutId`). */
    stopAt(boundary: PayoutBoundary, options: { payoutId?: string; mode?: 'die' | 'throw' } = {}) {
      Object.assign(stop, { boundary, payoutId: options.payoutId ?? null, mode: options.mode ?? 'die' });
    },
    /**
     * Waits for the payout to stop at the armed boundary; `nudge` (a sweep, not awaited: it may be the one that
     * stops) runs between looks, as a worker would retry an attempt that a lagging answer left unknown.
     */
    stoppedThere: (payoutId: string, nudge?: () => void) =>
      expect.poll(() => stop.hit.includes(payoutId) || void nudge?.(), { timeout: 20_000, interval: 250 }).toBe(true),
    /** Runs `action` once, the next time a payout reaches `boundary`, before any stop there: the world changing between two steps. */
    runAt(boundary: PayoutBoundary, action: () => Promise<unknown>) {
      actions.set(boundary, action);
    },
    /** Disarms whatever a test armed and did not reach. */
    reset: () => {
      actions.clear();
      Object.assign(stop, { boundary: null, payoutId: null, mode: 'die' });
    },
  };
}

/** What a restarted process sees: the dead process's lease has lapsed (time passing, without the wait). */
export const leaseLapses = (t: TestApp, payoutId: string) =>
  t.db.query("UPDATE payouts SET next_attempt_at = now() - interval '1 hour' WHERE id = $1", [payoutId]);
