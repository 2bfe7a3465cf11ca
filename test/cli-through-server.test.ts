import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type OpenDatabase } from '../src/cli/run.js';
import { custodyFor, type CustodyProvider } from '../src/custody/index.js';
import type { HotWallet } from '../src/outbound/outcomes.js';
import { adminTokenFile, announceServer } from '../src/operator-files.js';
import { ADMIN_TOKEN, startTestApp, workerSerializers, type TestApp } from './support/app.js';
import { createTenant, creditDirect, insertLiveAddress, json } from './support/partner.js';

/**
 * A "server" holding an embedded data directory: this test's app, listening, announced in a data directory
 * whose lock is held (by this process) and whose token file holds the app's operator token.
 */
/** Live payouts go to a stand-in provider whose node never answers: they stay open, as a stuck one does. */
const stuckCustody: CustodyProvider = {
  ...custodyFor('test'),
  payoutRefusal: () => null,
};
const stuckHotWallet: HotWallet = { advance: async () => ({ kind: 'unknown', reason: 'the node did not answer' }) };

let t: TestApp;
let dataDir: string;
let withdraw: () => void;
beforeAll(async () => {
  t = await startTestApp({}, undefined, { custodyFor: (mode) => (mode === 'live' ? stuckCustody : custodyFor(mode)), hotWallet: stuckHotWallet });
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

/** A live payout its provider never got anywhere with, once that first attempt is over: open, nothing on chain. */
async function openLivePayout(): Promise<{ id: string }> {
  const tenant = await createTenant(t, { mode: 'live' });
  await creditDirect(t, tenant.organizationId, { addressId: await insertLiveAddress(t, tenant.organizationId), network: 'solana', amount: '50' }, 'live');
  const quote = await t.call(tenant.key, 'POST', '/payouts/quote', {
    body: { asset: 'USDC', amount: '10', destination: 'So11111111111111111111111111111111111111112' },
    idempotencyKey: randomUUID(),
  });
  const payout = json<{ id: string }>(await t.call(tenant.key, 'POST', '/payouts', { body: { quote_id: json<{ quote_id: string }>(quote).quote_id }, idempotencyKey: randomUUID() }));
  await expect.poll(async () => (await t.admin('GET', `/payouts/${payout.id}`)).json().engine.last_error).toBe('the node did not answer');
  return payout;
}
const neverOpened: OpenDatabase = async () => Promise.reject(new Error('the database was opened'));
const testDatabase: OpenDatabase = async () => ({ ...t.db, close: async () => {} });

async function cli(argv: string[], env: NodeJS.ProcessEnv, open: OpenDatabase) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
  const code = await runCli(argv, io, open, env, workerSerializers());
  return { code, stdout, stderr };
}
/** Through the running server's operator API: the database is never opened by the CLI. */
const throughServer = (...argv: string[]) => cli(argv, { CONNECT_DATA_DIR: dataDir }, neverOpened);
/** On the database itself, as when no server runs. */
const direct = (...argv: string[]) => cli(argv, { CONNECT_DATA_DIR: path.join(dataDir, 'no-server-here') }, testDatabase);

describe('the CLI beside a server that holds the embedded database', () => {
  it('streams a statement from that server as the database itself would write it', async () => {
    const tenant = await createTenant(t);
    const address = json<{ id: string }>(await t.call(tenant.key, 'POST', '/addresses', { body: { asset: 'USDC', network: 'solana' }, idempotencyKey: randomUUID() }));
    await creditDirect(t, tenant.organizationId, { addressId: address.id, network: 'solana', amount: '3.5' });
    const today = new Date().toISOString().slice(0, 10);
    const argv = ['reports', 'transactions', tenant.organizationId, 'test', '--from', today, '--to', today, '--format', 'json'];
    const run = await throughServer(...argv);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ closing_balances: [{ asset: 'USDC', network: 'solana', amount: '3.5' }] });
    expect(run).toEqual(await direct(...argv));
  });

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
      ['reports', 'transactions', UNKNOWN_ID, 'live', '--from', '2026-01-01', '--to', '2026-01-31'],
      ['reports', 'transactions', org.id, 'test', '--from', '2026-01-31', '--to', '2026-01-01'],
    ]) {
      expect(await throughServer(...argv), argv.join(' ')).toEqual(await direct(...argv));
    }
  });

  it('payouts list, show and cancel print what the operator API answers, either way', async () => {
    const payout = await openLivePayout();
    for (const argv of [
      ['payouts', 'list', '--network', 'solana', '--limit', '5'],
      ['payouts', 'show', payout.id],
      ['payouts', 'cancel', payout.id],
      ['payouts', 'show', UNKNOWN_ID],
      ['payouts', 'cancel', UNKNOWN_ID],
      ['payouts', 'list', '--status', 'completed'],
    ]) {
      expect(await throughServer(...argv), argv.join(' ')).toEqual(await direct(...argv));
    }
    const shown = JSON.parse((await throughServer('payouts', 'show', payout.id)).stdout);
    expect(shown).toEqual((await t.admin('GET', `/payouts/${payout.id}`)).json());
    expect(shown).toMatchObject({ id: payout.id, status: 'pending', mode: 'live', engine: { cancel_requested_at: expect.any(String) }, chain: null });
    const listed = JSON.parse((await throughServer('payouts', 'list', '--network', 'solana')).stdout);
    expect(listed.data.map((p: { id: string }) => p.id)).toEqual([payout.id]);
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
