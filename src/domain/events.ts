import { monotonicFactory } from 'ulid';

export const API_VERSION = 'v1';

/** Event type → the name webhooks carry on the wire. */
export const EVENT_TYPES = {
  'payment_intent.payment_received': 'payment.received',
  'payment_intent.completed': 'payment.completed',
  'payment_intent.expired': 'payment.expired',
  'payment_intent.discrepancy_accepted': 'payment.discrepancy_accepted',
  'address.deposit.received': 'address.deposit.received',
  'deposit.reversed': 'deposit.reversed',
  'payout.created': 'payout.created',
  'payout.completed': 'payout.completed',
  'payout.failed': 'payout.failed',
  'refund.created': 'refund.created',
  'refund.completed': 'refund.completed',
  'refund.failed': 'refund.failed',
  'refund_address.submitted': 'refund_address.submitted',
} as const;

export type EventType = keyof typeof EVENT_TYPES;
export const RELATED_KINDS = ['payment_intent', 'address', 'payout'] as const;
export type RelatedKind = (typeof RELATED_KINDS)[number];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}

/** The millisecond of the last id, and the factory that keeps ids of that millisecond increasing. */
let current = { time: Number.NaN, next: monotonicFactory() };

/**
 * `evt_` + a ULID from the business clock's `now` (also the event's created_at), monotonic within a millisecond.
 * Only within one: a ULID factory left to itself keeps the latest time it has seen, so after a clock that stepped
 * back (or a test's clock set ahead) ids would encode another instant than their created_at.
 */
export function newEventId(now: Date): string {
  const time = now.getTime();
  if (time !== current.time) current = { time, next: monotonicFactory() };
  return `evt_${current.next(time)}`;
}

export const EVENT_ID_PATTERN = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
