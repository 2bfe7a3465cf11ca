import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli/run.js';
import { workerSerializers, type TestApp } from './app.js';

/**
 * The operator CLI run in this process on the app's database (kept open: runCli closes what it is given), from a
 * data directory no server runs on, with `settings` (the environment an operator's shell would give it); each run
 * answers its exit code and what it printed.
 */
export function cliOn(app: () => TestApp, settings: NodeJS.ProcessEnv = {}) {
  return async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
    const database = async () => ({ ...app().db, close: async () => {} });
    const env = { CONNECT_DATA_DIR: path.join(os.tmpdir(), 'cli-test-no-server-here'), ...settings };
    const code = await runCli(argv, io, database, env, workerSerializers());
    return { code, stdout, stderr };
  };
}
