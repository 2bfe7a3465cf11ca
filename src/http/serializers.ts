import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/** Compiled response serializers, by what they were compiled from; shared by the apps of one process. */
export type SerializerCache = Map<string, (doc: unknown) => string>;

/**
 * Fastify's own serializer factory (fast-json-stringify), compiling each response schema once per `cache`
 * instead of once per app: a process that builds many apps (the test suite builds one per file) otherwise
 * spends most of each app's start compiling the same schemas again. The key is everything the compiled code
 * depends on: the shared schemas, the options and the route's schema.
 */
export function cachedSerializers(cache: SerializerCache): SerializerFactory {
  const compile = SerializerSelector();
  return (externalSchemas, options) => {
    const compiler = compile(externalSchemas, options);
    const context = JSON.stringify([externalSchemas, options]);
    return (route) => {
      const key = `${context}\n${JSON.stringify(route.schema)}`;
      let serializer = cache.get(key);
      if (!serializer) cache.set(key, (serializer = compiler(route)));
      return serializer;
    };
  };
}
