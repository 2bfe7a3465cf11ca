import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/build.ts'],
    // Each file opens its own database (PGlite in memory, or a fresh schema on PostgreSQL).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
