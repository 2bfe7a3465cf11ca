import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-start-'));
const port = 20_000 + Math.floor(Math.random() * 20_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Starts `npm start`'s entry point on the embedded database and resolves once it has printed its banner. */
function start(): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, CONNECT_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: '' },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += String(chunk);
      if (output.includes('API reference')) setTimeout(() => resolve({ child, output }), 100);
    });
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start on a fresh machine', () => {
  it('prints the base URL, a sandbox key and a curl that works; SIGTERM stops it cleanly', { timeout: 120_000 }, async () => {
    const { child, output } = await start();
    const base = `http://127.0.0.1:${port}/connect/v1`;
    expect(output).toContain(`API base URL:    ${base}`);
    const key = /sk_test_[0-9A-Za-z]{32,}/.exec(output)?.[0];
    expect(key).toBeDefined();
    expect(output).toContain(`curl -H "Authorization: Bearer ${key}" ${base}/health`);
    expect(output).toMatch(/Operator token .*\n\s+adm_/);

    const res = await fetch(`${base}/health`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ mode: 'sandbox', organization: { status: 'active' } });

    expect(await stop(child)).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'connect-payments.lock'))).toBe(false);
  });

  it('a restart keeps the data and shows no key again', { timeout: 120_000 }, async () => {
    const { child, output } = await start();
    expect(output).not.toMatch(/sk_test_/);
    expect(await stop(child)).toBe(0);
  });
});
