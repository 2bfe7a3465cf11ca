import { Type, type Static } from 'typebox';
import { DELIVERY_STATES } from '../../domain/webhooks.js';
import type { DeliveryRow } from '../../store/webhook-deliveries.js';
import { iso, isoOrNull, NullableTimestamp, Timestamp, Uuid } from '../schemas.js';

/** One delivery of one event to the endpoint of its mode; a replay is a new delivery of the same event. */
export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('webhook_delivery'),
    event_id: Type.String(),
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    origin: Type.Union([Type.Literal('event'), Type.Literal('replay'), Type.Literal('bulk_replay')], {
      description: 'What queued it: the event itself, a partner replay, or an operator bulk replay.',
    }),
    state: Type.Enum(DELIVERY_STATES, {
      description: 'pending (not tried yet), failed (will be retried at next_attempt_at), delivered, dead (no more attempts).',
    }),
    attempt_count: Type.Integer(),
    last_http_status: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    next_attempt_at: NullableTimestamp,
    delivered_at: NullableTimestamp,
    created_at: Timestamp,
  },
  { title: 'WebhookDelivery' },
);

export function presentDelivery(row: DeliveryRow): Static<typeof WebhookDelivery> {
  return {
    id: row.id,
    object: 'webhook_delivery',
    event_id: row.event_id,
    mode: row.mode,
    origin: row.origin,
    state: row.state,
    attempt_count: row.attempt_count,
    last_http_status: row.last_http_status,
    last_error: row.last_error,
    next_attempt_at: isoOrNull(row.next_attempt_at),
    delivered_at: isoOrNull(row.delivered_at),
    created_at: iso(row.created_at),
  };
}
