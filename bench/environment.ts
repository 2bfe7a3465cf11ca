import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Where, on what and on which code the figures were measured: they mean little without it. */
export async function describeEnvironment(repoRoot: string, postgresVersion: string | null) {
  const packageVersion = async (name: string) => {
    const manifest = await fs.readFile(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8');
    return (JSON.parse(manifest) as { version: string }).version;
  };
  return {
    machine: {
      cpus: os.availableParallelism(),
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
      kernel: `${os.type()} ${os.release()}`,
    },
    versions: {
      node: process.version,
      postgres: postgresVersion,
      pglite: await packageVersion('@electric-sql/pglite'),
      fastify: await packageVersion('fastify'),
      autocannon: await packageVersion('autocannon'),
    },
    service: serviceRevision(repoRoot),
  };
}

/** The commit the service ran at, flagged when src/ differs from it (the tree may be edited meanwhile). */
function serviceRevision(repoRoot: string): string {
  // Read-only: GIT_OPTIONAL_LOCKS=0 stops `git status` from refreshing the index as a side effect.
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
      stdio: ['ignore', 'pipe', 'ignore'], // outside a checkout (bench/at-commit.sh), git's complaint is noise
    }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--', 'src') === '' ? commit : `${commit} with uncommitted changes in src/`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
