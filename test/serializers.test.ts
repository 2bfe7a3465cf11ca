import Fastify from 'fastify';
import { describe, expect, test } from 'vitest';
import { cachedSerializers, type SerializerCache } from '../src/http/serializers.js';

/** A bare app answering `body` at GET /, its 200 answer described by `schema`. */
async function answer(cache: SerializerCache, schema: object, body: unknown): Promise<string> {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: cachedSerializers(cache) } } });
  app.addSchema({ $id: 'Shared', type: 'object', properties: { note: { type: 'string' } } });
  app.get('/', { schema: { response: { 200: schema } } }, async () => body);
  const { payload } = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return payload;
}

describe('response serializers shared by the apps of one process', () => {
  test('a second app with the same schemas compiles nothing and answers the same bytes', async () => {
    const cache: SerializerCache = new Map();
    const schema = { type: 'object', properties: { id: { type: 'string' }, shared: { $ref: 'Shared#' } } };
    const body = { id: 'pi_1', shared: { note: 'n', hidden: 'x' }, extra: 1 };
    const first = await answer(cache, schema, body);
    const compiled = cache.size;
    expect(await answer(cache, structuredClone(schema), body)).toBe(first);
    expect(cache.size).toBe(compiled);
    expect(first).toBe('{"id":"pi_1","shared":{"note":"n"}}');
  });

  test('a schema that differs in one property gets its own serializer, not the cached one', async () => {
    const cache: SerializerCache = new Map();
    const body = { id: 'pi_1', amount: '1.50' };
    expect(await answer(cache, { type: 'object', properties: { id: { type: 'string' } } }, body)).toBe('{"id":"pi_1"}');
    expect(await answer(cache, { type: 'object', properties: { amount: { type: 'string' } } }, body)).toBe('{"amount":"1.50"}');
  });
});
