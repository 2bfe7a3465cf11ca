import { vi } from 'vitest';

/**
 * Setup file, run before each test file. A worker keeps what its earlier files imported (isolate: false in
 * vitest.config.ts): worth it for the dependencies in node_modules and PGlite's compiled WebAssembly, which Node
 * loads itself. The service's own modules hold state a file must not inherit (the monotonic clock of event ids,
 * which another file's business clock set hours ahead), so each file imports them afresh: under 1% of the CPU.
 */
vi.resetModules();
