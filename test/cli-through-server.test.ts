import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type OpenDatabase } from '../src/cli/run.js';
import { adminTokenFile, announceServer } from '../src/operator-files.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/app.js';

/**
 * A "server" holding an embedded data directory: this test's app, listening, announced in a data directory
 * whose lock is held (by this process) and whose token file holds the app's operator token.
 */
let t: TestApp;
let dataDir: string;
let withdraw: () => void;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-server-'));
  fs.writeFileSync(path.join(dataDir, 'connect-payments.lock'), String(process.pid));
  fs.writeFileSync(adminTokenFile(dataDir), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
  withdraw = announceServer(dataDir, { pid: process.pid, url: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` });
});
afterAll(async () => {
  withdraw();
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const neverOpened: OpenDatabase = async () => Promise.reject(new Error('the database was opened'));
const testDatabase: OpenDatabase = async () => ({ ...t.db, close: async () => {} });

async function cli(argv: string[], env: NodeJS.ProcessEnv, open: OpenDatabase) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
  const code = await runCli(argv, io, open, env);
  return { code, stdout, stderr };
}
/** Through the running server's operator API: the database is never opened by the CLI. */
const throughServer = (...argv: string[]) => cli(argv, { CONNECT_DATA_DIR: dataDir }, neverOpened);
/** On the database itself, as when no server runs. */
const direct = (...argv: string[]) => cli(argv, { CONNECT_DATA_DIR: path.join(dataDir, 'no-server-here') }, testDatabase);

describe('the CLI beside a server that holds the embedded database', () => {
  it('sends the verb to that server instead of refusing, and its effect is the server\'s', async () => {
    const run = await throughServer('org', 'create', '--name', 'Through the server', '--status', 'active');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const org = JSON.parse(run.stdout);
    expect((await t.admin('GET', `/organizations/${org.id}`)).json()).toEqual(org);
  });

  it('prints the same output either way, for answers and for refusals', async () => {
    const org = JSON.parse((await direct('org', 'create', '--name', 'Either way')).stdout);
    for (const argv of [
      ['org', 'get', org.id],
      ['key', 'list', org.id, '--limit', '5'],
      ['org', 'get', UNKNOWN_ID],
      ['key', 'create', org.id, '--mode', 'test', '--rate-limit-rps', '0'],
      ['ledger', 'verify'],
    ]) {
      expect(await throughServer(...argv), argv.join(' ')).toEqual(await direct(...argv));
    }
  });

  it('without a stored token or CONNECT_ADMIN_TOKEN it says which token it needs', async () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-server-no-token-'));
    const gone = announceServer(bare, { pid: process.pid, url: 'http://127.0.0.1:9' });
    try {
      const run = await cli(['org', 'list'], { CONNECT_DATA_DIR: bare }, neverOpened);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toContain(`The server (process ${process.pid}) holds the embedded database in ${bare}`);
      expect(run.stderr).toContain('set CONNECT_ADMIN_TOKEN');
    } finally {
      gone();
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it('an address left behind by a server that died is ignored: the verb runs on the database', async () => {
    const stale = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-server-stale-'));
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    announceServer(stale, { pid: deadPid, url: 'http://127.0.0.1:9' });
    try {
      const run = await cli(['org', 'list', '--limit', '1'], { CONNECT_DATA_DIR: stale }, testDatabase);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(run.stdout)).toMatchObject({ data: [expect.objectContaining({ object: 'organization' })] });
    } finally {
      fs.rmSync(stale, { recursive: true, force: true });
    }
  });
});
