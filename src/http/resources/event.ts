import { Type } from 'typebox';
import type { StoredEvent } from '../../store/events.js';
import { ListEnvelope } from '../pagination.js';
import { rawFieldSerializer } from '../raw-json.js';
import { Timestamp, Uuid } from '../schemas.js';

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

export const EventList = ListEnvelope(Event);

// An event's data is stored as the JSON text it is answered with (src/store/events.ts): handed through, not re-serialized.
const event = rawFieldSerializer(Event, 'data');
const eventList = rawFieldSerializer(EventList, 'data');

/** The Event object as JSON text. */
export function eventJson(row: StoredEvent): string {
  return event(
    {
      id: row.id,
      object: 'event',
      type: row.type,
      livemode: row.mode === 'live',
      api_version: row.api_version,
      created_at: row.created_at,
      related_to: row.related_to,
      related_to_kind: row.related_to_kind,
    },
    row.data_text,
  );
}

/** A page of events as JSON text, from the envelope whose data are the events' JSON texts. */
export function eventListJson(page: { has_more: boolean; data: string[]; cursor: string | null }): string {
  return eventList(page, `[${page.data.join(',')}]`);
}
