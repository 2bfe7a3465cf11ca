import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const stamp = path.join(root, 'dist', '.built-for-tests');

function newestSource(dir: string): number {
  let newest = fs.statSync(dir).mtimeMs;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Vitest global setup. The tests that start `npm start`, the installed command or a worker process run the
 * compiled build, as operators do, so dist/ must match src/: rebuilt when any source file is newer.
 */
export default function buildWhenStale(): void {
  const builtAt = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
  if (newestSource(path.join(root, 'src')) <= builtAt) return;
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  fs.writeFileSync(stamp, '');
}
