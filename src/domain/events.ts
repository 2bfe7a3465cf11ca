import { monotonicFactory } from 'ulid';

export const API_VERSION = 'v1';

/** Event type → the name webhooks carry on the wire. */
export const EVENT_TYPES = {
  'payment_intent.payment_received': 'payment.received',
  'payment_intent.completed': 'payment.completed',
  'payment_intent.expired': 'payment.expired',
  'address.deposit.received': 'address.deposit.received',
} as const;

export type EventType = keyof typeof EVENT_TYPES;
export type RelatedKind = 'payment_intent' | 'address';

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}

const nextUlid = monotonicFactory();

/** `evt_` + a ULID, monotonic within a millisecond, and the time encoded in it (the event's created_at). */
export function newEventId(now = Date.now()): { id: string; createdAt: Date } {
  return { id: `evt_${nextUlid(now)}`, createdAt: new Date(now) };
}

export const EVENT_ID_PATTERN = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
