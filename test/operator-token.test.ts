import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { adminTokenFile, operatorToken } from '../src/operator-files.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-token-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const embedded = (dataDir: string) => ({ adminToken: undefined, databaseUrl: undefined, dataDir });

async function cli(argv: string[], env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
  const code = await runCli(argv, io, async () => Promise.reject(new Error('admin-token opens no database')), env);
  return { code, stdout, stderr };
}

describe('the operator token on the embedded database', () => {
  it('is generated at the first start, stored readable by its owner only, and the same at every later start', () => {
    const dataDir = freshDir();
    const first = operatorToken(embedded(dataDir));
    expect(first).toEqual({ token: expect.stringMatching(/^adm_[\w-]{32}$/), origin: 'generated' });
    expect(fs.statSync(adminTokenFile(dataDir)).mode & 0o777).toBe(0o600);
    expect(operatorToken(embedded(dataDir))).toEqual({ token: first.token, origin: 'stored' });
  });

  it('CONNECT_ADMIN_TOKEN, when set, is the token, and nothing is stored', () => {
    const dataDir = freshDir();
    expect(operatorToken({ ...embedded(dataDir), adminToken: 'x'.repeat(32) })).toEqual({ token: 'x'.repeat(32), origin: 'environment' });
    expect(fs.existsSync(adminTokenFile(dataDir))).toBe(false);
  });

  it('connect-payments admin-token prints the stored token, alone on its line', async () => {
    const dataDir = freshDir();
    const { token } = operatorToken(embedded(dataDir));
    expect(await cli(['admin-token'], { CONNECT_DATA_DIR: dataDir })).toEqual({ code: 0, stdout: `${token}\n`, stderr: '' });
  });

  it('admin-token before any server start says where the token will be', async () => {
    const dataDir = freshDir();
    const run = await cli(['admin-token'], { CONNECT_DATA_DIR: dataDir });
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain(`No operator token in ${adminTokenFile(dataDir)}`);
  });
});

describe('the operator token on PostgreSQL (DATABASE_URL)', () => {
  it('must be set: instances must agree on it, so a start without CONNECT_ADMIN_TOKEN stops with a clear error', () => {
    expect(() => operatorToken({ adminToken: undefined, databaseUrl: 'postgres://db/connect', dataDir: freshDir() })).toThrow(
      /CONNECT_ADMIN_TOKEN is required with DATABASE_URL: every instance must accept the same operator token/,
    );
  });

  it('admin-token prints nothing and says the token is CONNECT_ADMIN_TOKEN', async () => {
    const run = await cli(['admin-token'], { DATABASE_URL: 'postgres://db/connect' });
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('CONNECT_ADMIN_TOKEN');
  });
});
