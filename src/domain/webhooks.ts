import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES, type EventType, type RelatedKind } from './events.js';

/** Where a delivery stands; `pending` and `failed` are outstanding (a worker will try again), the others final. */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'dead'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The states bulk replay selects on: how an event's most recent delivery ended, or `none` for no delivery at all. */
export const REPLAYABLE_STATES = ['dead', 'delivered', 'none'] as const;
export type ReplayableState = (typeof REPLAYABLE_STATES)[number];

/**
 * Standard Webhooks' suggested schedule: the first attempt at once, then retries after 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (about three days in all); a delivery still failing after that is dead.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];

/** How long the previous secret keeps signing after a rotation, unless the operator says otherwise. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
export const MAX_ROTATION_GRACE_SECONDS = 7 * 86_400;

/** A receiver has this long to answer with a 2xx before the attempt counts as failed. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** 32 random bytes, base64, behind the Standard Webhooks prefix its libraries expect. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Seconds from the end of attempt number `attempts` (1-based) to the next one, with ±10 % jitter so that
 * deliveries failed together do not retry in lockstep; null when the schedule is used up (the delivery is dead).
 */
export function retryDelaySeconds(schedule: readonly number[], attempts: number, random: () => number = Math.random): number | null {
  const base = schedule[attempts];
  if (base === undefined) return null;
  return base * (0.9 + 0.2 * random());
}

/** The outcome of one attempt, as the receiver's answer decides it. */
export type AttemptVerdict = 'delivered' | 'retry' | 'gone';

/** A 2xx is delivered; 410 Gone means the receiver wants no more tries; anything else (a 3xx too) is retried. */
export function verdictFor(status: number): AttemptVerdict {
  if (status >= 200 && status < 300) return 'delivered';
  return status === 410 ? 'gone' : 'retry';
}

export interface WebhookEventFields {
  id: string;
  type: EventType;
  api_version: string;
  livemode: boolean;
  created_at: Date;
  related_to: string | null;
  related_to_kind: RelatedKind | null;
  data: Record<string, unknown>;
}

/** The JSON body every delivery and replay of an event carries; `event` is the wire name handlers may route on. */
export function webhookBody(event: WebhookEventFields): string {
  return JSON.stringify({
    event_id: event.id,
    event: EVENT_TYPES[event.type],
    type: event.type,
    api_version: event.api_version,
    livemode: event.livemode,
    created_at: event.created_at.toISOString(),
    related_to: event.related_to,
    related_to_kind: event.related_to_kind,
    data: event.data,
  });
}

/**
 * Standard Webhooks headers: `webhook-id` is the event id (the same on every retry and replay, so receivers
 * dedupe on it, as on X-Service-Event-Id), and one `v1,` signature per secret that is valid right now.
 */
export function signedHeaders(eventId: string, body: string, secrets: readonly string[], now: Date): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(eventId, now, body));
  return {
    'content-type': 'application/json',
    'x-service-event-id': eventId,
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/** Reads CONNECT_WEBHOOK_RETRY_SCHEDULE: comma-separated seconds, the first attempt's delay first. */
export function parseRetrySchedule(raw: string): number[] {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !/^\d{1,7}$/.test(part))) {
    throw new Error(`CONNECT_WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds, e.g. "0,5,300"; got "${raw}"`);
  }
  return parts.map(Number);
}
