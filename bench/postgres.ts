import pg from 'pg';

export interface BenchDatabase {
  name: string;
  /** Connection string of the new database, for the service's DATABASE_URL. */
  url: string;
  serverVersion: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for this run on the server behind `adminUrl`, so no earlier data skews it. A step
 * that needs a database of its own names it with `suffix`.
 */
export async function createBenchDatabase(adminUrl: string, suffix = ''): Promise<BenchDatabase> {
  const name = `connect_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}${suffix ? `_${suffix}` : ''}`;
  const serverVersion = await withClient(adminUrl, async (client) => {
    await client.query(`CREATE DATABASE "${name}"`);
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0]!.server_version;
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    serverVersion,
    // FORCE ends the sessions of a service child that did not stop cleanly.
    drop: () =>
      withClient(adminUrl, async (client) => void (await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))),
  };
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Settles the database before a measurement: a scenario that inserted thousands of rows leaves autovacuum,
 * auto-analyze and a checkpoint to run, and that work would be billed to the next scenario.
 */
export async function quietDatabase(postgres: { adminUrl: string; database: string }): Promise<void> {
  const url = new URL(postgres.adminUrl);
  url.pathname = `/${postgres.database}`;
  await withClient(url.toString(), async (client) => {
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
  });
}
