import { Redis } from 'ioredis';

/** Fails the run at once, with what to do, when the Redis of a redis target does not answer. */
export async function checkRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, retryStrategy: () => null });
  // The connection's own error says why (refused, timed out); the failed command only says it is closed.
  let connectionError: Error | undefined;
  redis.on('error', (error: Error) => (connectionError = error));
  try {
    await redis.ping();
  } catch (error) {
    const reason = (connectionError ?? (error as Error)).message;
    throw new Error(`no answer from Redis at --redis-url (${reason}): start it, or leave the postgres-redis target out with --only`, {
      cause: error,
    });
  } finally {
    redis.disconnect();
  }
}
