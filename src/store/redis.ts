import { Redis } from 'ioredis';

/** What the Redis connection reports through: outages and recoveries, not every reconnect attempt. */
export interface RedisLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * A Redis connection for work that has a fallback of its own (rate limits fall back to per-instance counters),
 * so a command fails fast rather than waiting for Redis: nothing is queued while disconnected, a command in
 * flight when the connection drops is not sent again, and one that gets no answer gives up. It reconnects in
 * the background for as long as it is open. Resolves once the first attempt to connect has succeeded or failed,
 * so a fresh instance counts its first requests in Redis whenever Redis answers (an attempt is bounded by the
 * connect timeout).
 */
export async function openRedis(url: string, log: RedisLog): Promise<Redis> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    // A rate-limit increment takes well under a millisecond; past this Redis counts as down for the request.
    commandTimeout: 250,
  });
  let reachable: boolean | undefined;
  client.on('error', (err: Error) => {
    if (reachable === false) return;
    reachable = false;
    log.warn({ error: err.message }, 'Redis unreachable: rate limits count per instance until it answers again');
  });
  client.on('ready', () => {
    if (reachable === false) log.info({}, 'Redis reachable again: rate limits are shared across instances');
    reachable = true;
  });
  await new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', () => resolve());
  });
  return client;
}
