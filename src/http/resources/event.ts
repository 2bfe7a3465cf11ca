import { Type } from 'typebox';
import { EVENT_FIELDS } from '../../store/events.js';
import { jsonObjectSql } from '../json-sql.js';
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

/** The SQL writing an Event object's JSON text (see jsonObjectSql): events are handed through as text. */
export const EVENT_JSON = jsonObjectSql(Event, EVENT_FIELDS, {
  raw: ['data'],
  // Ids, names from the domain's lists (test/events-json.test.ts), the API version, UUIDs and times.
  plain: ['id', 'type', 'api_version', 'created_at', 'related_to', 'related_to_kind'],
});

const eventList = rawFieldSerializer(EventList, 'data');

/** A page of events as JSON text: the envelope around the events' texts, joined by commas. */
export function eventListJson(envelope: { has_more: boolean; cursor: string | null }, items: string): string {
  return eventList(envelope, `[${items}]`);
}
