import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startServer, type ServerProcess } from './child.js';
import type { RunContext } from './measure.js';
import { createBenchDatabase, type BenchDatabase } from './postgres.js';

/**
 * A step that needs the service to itself (fairness, statement): its own PostgreSQL database and server with an
 * operator token, handed to `step` and removed afterwards, whatever `step` does.
 */
export async function withOwnService<T>(
  { repoRoot, workDir, options, cleanup }: RunContext,
  name: string,
  step: (service: { server: ServerProcess; database: BenchDatabase; adminToken: string }) => Promise<T>,
): Promise<T> {
  const database = await createBenchDatabase(options.postgresUrl, name);
  const dropDatabase = cleanup.add(database.drop);
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const server = await startServer({
    entry: 'src/main.ts',
    cwd: repoRoot,
    env: { LOG_LEVEL: 'warn', DATABASE_URL: database.url, CONNECT_ADMIN_TOKEN: adminToken },
    logFile: path.join(workDir, `${name}-server.log`),
  });
  const stopServer = cleanup.add(server.stop);
  try {
    return await step({ server, database, adminToken });
  } finally {
    await stopServer();
    await dropDatabase();
  }
}
