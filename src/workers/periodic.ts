import type { FastifyBaseLogger } from 'fastify';

/**
 * Runs `task` now and then every `intervalSeconds`, never two runs at once; failures are logged and the
 * next run tries again. Returns a stop function. The timer does not keep the process alive.
 */
export function runPeriodically(
  name: string,
  intervalSeconds: number,
  task: () => Promise<number>,
  log: FastifyBaseLogger,
): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const done = await task();
      if (done > 0) log.info({ worker: name, done }, `${name}: ${done} done`);
    } catch (err) {
      log.error({ err, worker: name }, `${name} failed`);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalSeconds * 1000);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
