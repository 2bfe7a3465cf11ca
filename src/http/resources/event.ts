import { Type, type Static } from 'typebox';
import type { EventRow } from '../../store/events.js';
import { iso, Timestamp, Uuid } from '../schemas.js';

export const Event = Type.Object(
  {
    id: Type.String({ pattern: '^evt_[0-9A-HJKMNP-TV-Z]{26}$' }),
    object: Type.Literal('event'),
    type: Type.String({ description: 'Route on it; ignore types you do not know.' }),
    livemode: Type.Boolean(),
    api_version: Type.String(),
    created_at: Timestamp,
    data: Type.Record(Type.String(), Type.Unknown()),
    related_to: Type.Union([Uuid, Type.Null()]),
    related_to_kind: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'Event' },
);

export function presentEvent(row: EventRow): Static<typeof Event> {
  return {
    id: row.id,
    object: 'event',
    type: row.type,
    livemode: row.mode === 'live',
    api_version: row.api_version,
    created_at: iso(row.created_at),
    data: row.data,
    related_to: row.related_to,
    related_to_kind: row.related_to_kind,
  };
}
