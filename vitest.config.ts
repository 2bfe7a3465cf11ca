import os from 'node:os';
import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config';

/** What the files of both projects run with. */
const shared = {
  // Each file opens its own database (PGlite in memory, or a fresh schema on PostgreSQL).
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // A worker runs its files one after another in one process, which keeps what they imported (the service's
  // modules, the dependencies, PGlite's compiled WebAssembly), the response serializers its apps compiled
  // (test/support/app.ts) and an embedded database to empty for the next file (test/support/pglite-spares.ts),
  // instead of starting a process for each file: most of the suite's CPU time. Each file still gets its own app
  // and an empty database. The service keeps next to no state in its modules (src/domain/events.ts says why the
  // one that mattered does not leak from file to file).
  isolate: false,
} satisfies ViteUserConfig['test'];

export default defineConfig({
  test: {
    // Two projects: the service's own tests, and `live`, the tests of one chain family each (test/live/evm, tron,
    // solana) against anvil, a fake Tron node or litesvm; `npx vitest run --project live` runs those alone.
    projects: [
      { test: { ...shared, name: 'service', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/live/**'] } },
      { test: { ...shared, name: 'live', include: ['test/live/**/*.test.ts'] } },
    ],
    // Once per run, from the root, for both projects.
    globalSetup: ['test/support/build.ts', 'test/support/pglite-template.ts'],
    pool: 'forks',
    // Vitest's default (one fewer than the cores) is a single file at a time on two cores, where much of a
    // file's time is spent waiting on child processes, chains and timers rather than on the CPU.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // A line per file at a terminal; into a file or CI log, a dot per test and the failures in full.
    reporters: process.stdout.isTTY ? ['default'] : ['dot'],
  },
});
