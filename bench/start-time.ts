/**
 * Start-up time of the compiled server: spawns `node dist/main.js` on an existing data directory, times it
 * up to the end of its banner (listening, ready to answer), then sends SIGTERM and times the exit.
 * Usage: npm run build && npx tsx bench/start-time.ts <data dir> [runs]
 */
import { spawn } from 'node:child_process';
import { freePort } from './child.js';

const [dataDir, runs = '5'] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: npx tsx bench/start-time.ts <data dir> [runs]');

async function once(): Promise<{ startMs: number; stopMs: number; exitCode: number | null }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...process.env, CONNECT_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: '', CONNECT_ADMIN_TOKEN: '' },
  });
  let output = '';
  const startMs = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Operator token') && output.endsWith('\n\n')) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before its banner`)));
  });
  child.removeAllListeners('exit');
  const stopping = performance.now();
  const exitCode = await new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  return { startMs: Math.round(startMs), stopMs: Math.round(performance.now() - stopping), exitCode };
}

for (let i = 0; i < Number(runs); i++) process.stdout.write(`${JSON.stringify(await once())}\n`);
