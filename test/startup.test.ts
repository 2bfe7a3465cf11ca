import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-start-'));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;
const env = { ...process.env, CONNECT_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: '', CONNECT_ADMIN_TOKEN: '' };
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Runs `command` (npm start, or the compiled entry itself) and resolves once it has printed its banner. */
function start(command: string, args: string[]): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(command, args, { cwd: root, env });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += String(chunk);
      if (/Operator token.*\n(.*\n)?\n$/.test(output)) resolve({ child, output });
    });
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

/** Sends `signal` to the process and resolves to its exit code. */
function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/** Whether nothing listens on the port any more (this process can take it). */
const portIsFree = () =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer().once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

const cli = (...argv: string[]) => promisify(execFile)(process.execPath, ['bin/connect-payments.js', ...argv], { cwd: root, env });

describe('npm start on a fresh machine (the compiled build)', () => {
  let token = '';

  it('prints the base URL, a sandbox key, a curl that works and the generated operator token', { timeout: 120_000 }, async () => {
    const { child, output } = await start('npm', ['start']);
    try {
      expect(output).toContain(`API base URL:    ${base}/connect/v1`);
      expect(output.match(/Connect Payments is running/g)).toHaveLength(1);
      const key = /sk_test_[0-9A-Za-z]{32,}/.exec(output)?.[0];
      expect(output).toContain(`curl -H "Authorization: Bearer ${key}" ${base}/connect/v1/health`);
      token = /Operator token .*\n\s+(adm_\S+)/.exec(output)?.[1] ?? '';
      expect(token).not.toBe('');
      const res = await fetch(`${base}/connect/v1/health`, { headers: { authorization: `Bearer ${key}` } });
      expect(await res.json()).toMatchObject({ mode: 'sandbox', organization: { status: 'active' } });
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
    } finally {
      // SIGTERM to npm itself (what a process manager sends) reaches the server, which stops cleanly.
      expect(await stop(child, 'SIGTERM')).toBe(0);
    }
    expect(await portIsFree()).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'connect-payments.lock'))).toBe(false);
  });

  it('a restart keeps the data and the operator token, and shows neither key nor token again', { timeout: 120_000 }, async () => {
    const { child, output } = await start(process.execPath, ['dist/main.js']);
    try {
      expect(output).not.toMatch(/sk_test_|adm_/);
      expect(output).toContain('`npx connect-payments admin-token` prints it');
      const res = await fetch(`${base}/admin/v1/organizations`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);

      // Beside the running server the CLI goes through its operator API; admin-token prints the same token.
      const { stdout } = await cli('org', 'list', '--limit', '1');
      expect(JSON.parse(stdout)).toMatchObject({ data: [{ object: 'organization', name: expect.any(String) }] });
      expect((await cli('admin-token')).stdout).toBe(`${token}\n`);
    } finally {
      // Ctrl-C at a terminal: SIGINT.
      expect(await stop(child, 'SIGINT')).toBe(0);
    }
    expect(await portIsFree()).toBe(true);
    expect(fs.readdirSync(dataDir).filter((file) => file === 'connect-payments.lock' || file === 'server.json')).toEqual([]);
  });

  it('on PostgreSQL without CONNECT_ADMIN_TOKEN it does not start, and says why', { timeout: 60_000 }, async () => {
    const run = promisify(execFile)(process.execPath, ['dist/main.js'], {
      cwd: root,
      env: { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' },
    });
    await expect(run).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('CONNECT_ADMIN_TOKEN is required with DATABASE_URL') });
  });
});
