/**
 * The operator dashboard's own reads (docs/dashboard.md): the search over every tenant's objects, the chart of
 * deposit volume, and the sessions it has signed out. Its other pages read through the operator's use cases
 * (operator.ts, operator-payouts.ts, reconciliation.ts) and the partner's (balances, transactions, events).
 */
export { eventsAbout, findObject, MAX_FOUND, OBJECT_KINDS, refundsOfIntent, searchObjects, type Found, type IntentRefund, type ObjectKind } from '../store/search.js';
export { dailyDepositVolume, type DailyVolumeRow } from '../store/volume.js';
export { isSignedOut, recordSignOut } from '../store/dashboard-sign-outs.js';
