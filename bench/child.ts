import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const READY_TIMEOUT_MS = 90_000; // PGlite's first open of a new data directory alone takes a few seconds
const STOP_TIMEOUT_MS = 15_000;
// Settings the runner decides; inherited ones (a DATABASE_URL in the shell, say) must not leak into a target.
const SERVICE_ENV = /^(CONNECT_|DATABASE_URL$|REDIS_URL$|LOG_LEVEL$|PORT$|HOST$)/;

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** SIGTERM, then SIGKILL if it has not exited in time. */
  stop(): Promise<void>;
}

export interface ServerSpec {
  /** Script to run, relative to `cwd`. */
  entry: string;
  cwd: string;
  env: Record<string, string>;
  /** The child's stdout and stderr go here, not through the runner, which must spend its CPU on load. */
  logFile: string;
  /** Extra modules loaded before `entry` (the profiling probe); opens an IPC channel to the child. */
  preload?: string;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `node --import tsx entry` and resolves once it answers HTTP on its port. */
export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  const port = await freePort();
  const args = ['--import', 'tsx', ...(spec.preload ? ['--import', spec.preload] : []), spec.entry];
  const { child, stop } = spawnChild(args, spec, { HOST: '127.0.0.1', PORT: String(port) }, Boolean(spec.preload));
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(baseUrl, child);
  } catch (error) {
    await stop();
    throw new Error(`${spec.entry} did not start: ${(error as Error).message}\n--- last output ---\n${tail(spec.logFile)}`, {
      cause: error,
    });
  }
  return { child, pid: child.pid!, baseUrl, stop };
}

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** SIGTERM, then SIGKILL if it has not exited in time; resolves to how it exited. */
  stop(): Promise<string>;
}

/**
 * Starts the CLI's `worker` (no HTTP) from the TypeScript source, as the servers run here, at LOG_LEVEL=info,
 * and resolves once its log says "worker started", which it writes at that level once its background work runs.
 */
export async function startWorker(spec: Omit<ServerSpec, 'entry' | 'preload'>): Promise<WorkerProcess> {
  const { child, stop } = spawnChild(['--import', 'tsx', 'src/cli/main.ts', 'worker'], spec, { LOG_LEVEL: 'info' }, false);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let problem: string | null = null;
  while (!fs.readFileSync(spec.logFile, 'utf8').includes('worker started')) {
    if (child.exitCode !== null || child.signalCode !== null) problem = `exited (${child.exitCode ?? child.signalCode})`;
    else if (Date.now() > deadline) problem = `not ready within ${READY_TIMEOUT_MS / 1000} s`;
    if (problem) {
      await stop();
      throw new Error(`the worker did not start: ${problem}\n--- last output ---\n${tail(spec.logFile)}`);
    }
    await sleep(50);
  }
  const stopAndTell = async () => {
    await stop();
    return child.signalCode ?? `exit code ${child.exitCode}`;
  };
  return { child, pid: child.pid!, stop: stopAndTell };
}

/**
 * Spawns `node args` with the runner's settings only (`spec.env`, then `fixed` over it), its output appended to
 * the log file.
 */
function spawnChild(
  args: string[],
  spec: Pick<ServerSpec, 'cwd' | 'env' | 'logFile'>,
  fixed: Record<string, string>,
  ipc: boolean,
): { child: ChildProcess; stop: () => Promise<void> } {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVICE_ENV.test(name)));
  Object.assign(env, spec.env, fixed);
  const log = fs.openSync(spec.logFile, 'a');
  const child = spawn(process.execPath, args, { cwd: spec.cwd, env, stdio: ['ignore', log, log, ...(ipc ? (['ipc'] as const) : [])] });
  fs.closeSync(log);

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
  };
  return { child, stop };
}

async function waitUntilAnswering(baseUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited (${child.exitCode ?? child.signalCode})`);
    try {
      // Any status will do: the service listens only once migrated and set up.
      await (await fetch(baseUrl, { signal: AbortSignal.timeout(1000) })).arrayBuffer();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`no answer within ${READY_TIMEOUT_MS / 1000} s`);
}

function tail(file: string, chars = 3000): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-chars);
  } catch {
    return '(no output)';
  }
}
