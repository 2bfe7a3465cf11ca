import pg from 'pg';
import type { Share } from './cpu-profile.js';

const INTERVAL_MS = 20;

/**
 * Samples what the service's PostgreSQL sessions are doing while load runs: running a statement, waiting
 * on a lock (contention), or idle (waiting for the service to send the next statement). Returns a function
 * that stops sampling and gives each state's share of all session samples.
 */
export async function sampleActivity(adminUrl: string, database: string): Promise<() => Promise<Share[]>> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const tally = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ state: string | null; wait: string | null }>(
        `SELECT state, wait_event_type || ':' || wait_event AS wait FROM pg_stat_activity
         WHERE datname = $1 AND backend_type = 'client backend'`,
        [database],
      );
      for (const row of rows) {
        const active = row.wait ? `active, waiting on ${row.wait}` : 'active, running';
        const label = row.state === 'active' ? active : (row.state ?? 'unknown');
        tally.set(label, (tally.get(label) ?? 0) + 1);
        samples += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    }
  })();
  // A failed sample must not crash the runner mid-load: the error surfaces when sampling is stopped.
  loop.catch(() => {});
  return async () => {
    running = false;
    await loop;
    await client.end();
    return [...tally]
      .sort((a, b) => b[1] - a[1])
      .map(([name, count]) => ({ name, percent: Math.round((count / samples) * 1000) / 10 }));
  };
}
