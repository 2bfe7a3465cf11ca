import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A PostgreSQL server of a test's own, which it may restart or crash: the shared server of TEST_DATABASE_URL
 * serves other test files (and other people) and must never be restarted. initdb refuses to run as root, so as
 * root the server runs as the `postgres` user.
 */
export interface PrivatePostgres {
  url: string;
  /** `fast` is a clean shutdown (sessions told and closed); `immediate` is a crash (every backend killed at once). */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  stop(): Promise<void>;
}

const run = promisify(execFile);

/** The directory of the newest installed PostgreSQL server's programs, or null when there is none. */
export function postgresBinaries(): string | null {
  const installed = '/usr/lib/postgresql';
  if (!fs.existsSync(installed)) return null;
  const versions = fs.readdirSync(installed).sort((a, b) => Number(b) - Number(a));
  const bin = versions.map((version) => path.join(installed, version, 'bin')).find((dir) => fs.existsSync(path.join(dir, 'initdb')));
  return bin ?? null;
}

/** Why a private server cannot be started here (to name in the skipped test), or null when it can. */
export function privatePostgresUnavailable(): string | null {
  if (!postgresBinaries()) return 'no PostgreSQL server programs under /usr/lib/postgresql/*/bin';
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root without a postgres user to run initdb as';
    }
  }
  return null;
}

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinaries()!;
  const asRoot = process.getuid?.() === 0;
  const as = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args]) : run(path.join(bin, program), args);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-private-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    fs.chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  await as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '--no-instructions']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const pgCtl = (...args: string[]) => as('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '30', ...args]);
  await pgCtl('-o', options, 'start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async (mode) => void (await pgCtl('-m', mode, '-o', options, 'restart')),
    async stop() {
      await pgCtl('-m', 'immediate', 'stop').catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
