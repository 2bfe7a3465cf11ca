import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import pg from 'pg';

/**
 * Loaded into a service child with `--import` when the bench runs with --profile; the service code is not
 * touched. Between the runner's "start" and "stop" messages it records a V8 CPU profile and counts the SQL
 * statements the service sends through `pg`, so start-up, setup and warm-up stay out of both.
 */
export type ProbeCommand = { probe: 'start' } | { probe: 'stop'; profilePath: string };
export type ProbeReply = { probe: 'started' } | { probe: 'stopped'; statements: Record<string, number> };

const statements = new Map<string, { text: string; count: number }>();
let recording = false;

// pg.Pool and rate-limiter-flexible both end in Client#query, whatever form the arguments take.
type Query = (this: pg.Client, ...args: unknown[]) => unknown;
const query = pg.Client.prototype.query as unknown as Query;
(pg.Client.prototype as unknown as { query: Query }).query = function countedQuery(...args) {
  if (recording) {
    const [first] = args;
    const config = typeof first === 'string' ? { text: first } : ((first ?? {}) as { text?: string; name?: string });
    const text = config.text ?? '(no text)';
    // A prepared statement's short name is cheaper to hash than its text, which some callers rebuild every time.
    const key = config.name ?? text;
    const entry = statements.get(key) ?? { text, count: 0 };
    entry.count += 1;
    statements.set(key, entry);
  }
  return query.apply(this, args);
};

const session = new Session();
session.connect();

async function handle(command: ProbeCommand): Promise<ProbeReply> {
  if (command.probe === 'start') {
    statements.clear();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    recording = true;
    return { probe: 'started' };
  }
  recording = false;
  const { profile } = await session.post('Profiler.stop');
  await writeFile(command.profilePath, JSON.stringify(profile));
  return { probe: 'stopped', statements: Object.fromEntries([...statements.values()].map((s) => [s.text, s.count])) };
}

process.on('message', (command: ProbeCommand) => {
  handle(command).then(
    (reply) => process.send?.(reply),
    (error: unknown) => process.stderr.write(`bench probe: ${String(error)}\n`),
  );
});
