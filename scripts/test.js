// `npm test`: the type check, the lint and the tests at once. The tests leave part of two cores idle while they
// wait on child processes, chains and timers, and the checks fill it (run one after the other, the checks added
// half a minute to the suite's wall time). The checks print nothing when they pass; what they find is printed
// after the tests' report, so that it is not lost among the dots. Arguments go to vitest
// (`npm test -- test/ledger.test.ts`).
import { spawn } from 'node:child_process';
import process from 'node:process';

const run = (command, args, options = {}) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: options.capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (options.capture) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => (output += chunk));
    child.on('close', (code, signal) => resolve({ name: options.capture, ok: code === 0, output, signal }));
  });

const checks = [run('npx', ['tsc', '--noEmit'], { capture: 'typecheck' }), run('npx', ['eslint', '.'], { capture: 'lint' })];
const tests = await run('npx', ['vitest', 'run', ...(process.stdout.isTTY ? [] : ['--no-color']), ...process.argv.slice(2)]);
let failed = !tests.ok;
for (const check of await Promise.all(checks)) {
  if (check.ok) continue;
  failed = true;
  process.stdout.write(`\n${check.name} failed:\n${check.output}`);
}
process.exitCode = failed ? 1 : 0;
