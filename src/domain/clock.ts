/**
 * The one clock of business time: intent creation and expiry, credits, events and the sweeper all read it,
 * so that "has this intent expired?" gets one answer everywhere and event order agrees with expiry order.
 * Injected (tests move it by hand); the database's own now() is used only for bookkeeping that decides
 * nothing a partner sees (idempotency-record lifetimes, migration and operator timestamps).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
