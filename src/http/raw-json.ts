import type { FastifyReply } from 'fastify';
import fastJson, { type Schema } from 'fast-json-stringify';
import type { TObject } from 'typebox';

/**
 * A serializer for objects of `schema` whose `field` is already JSON text, put in verbatim: text stored compact at
 * write time need not be parsed and written again at every read. The other fields go through fast-json-stringify
 * compiled from the same schema the route declares (so the OpenAPI document, validation and this agree), in the
 * schema's key order, which is the order Fastify's own serializer writes.
 */
export function rawFieldSerializer<S extends TObject>(schema: S, field: keyof S['properties'] & string) {
  const keys = Object.keys(schema.properties);
  const at = keys.indexOf(field);
  if (at < 0) throw new Error(`${field} is not a property of the schema`);
  const part = (names: string[]) =>
    fastJson({
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, schema.properties[name] as Schema])),
      required: (schema.required ?? []).filter((name) => names.includes(name)),
    });
  const before = part(keys.slice(0, at));
  const after = part(keys.slice(at + 1));
  const name = `${JSON.stringify(field)}:`;
  // Each part is a whole object, "{}" when it has no field: its braces are dropped, the comma kept where needed.
  const open = (text: string) => (text.length > 2 ? `${text.slice(0, -1)},` : '{');
  const close = (text: string) => (text.length > 2 ? `,${text.slice(1)}` : '}');
  return (value: Record<string, unknown>, raw: string): string => `${open(before(value))}${name}${raw}${close(after(value))}`;
}

/** Sends JSON text already made (by a serializer above, or stored): Fastify sends a string with a JSON type as it is. */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
