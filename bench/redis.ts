import { Redis } from 'ioredis';

/** Fails the run at once, with what to do, when the Redis of a redis target does not answer. */
export async function checkRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.ping();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`no answer from Redis at --redis-url (${reason}): start it, or leave the postgres-redis target out with --only`, {
      cause: error,
    });
  } finally {
    redis.disconnect();
  }
}
