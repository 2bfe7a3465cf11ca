import Fastify from 'fastify';

/**
 * The baseline every service figure is divided by: the same Node and Fastify as the service, one route,
 * no logging, hooks, plugins or database. Run as its own process, exactly like the service.
 */
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));

await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 3000) });

process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
