import fs from 'node:fs';
import path from 'node:path';

/**
 * PGlite does not stop a second process from opening the same data directory, and two writers corrupt
 * it, so the directory is claimed with a lock file naming the owner's pid.
 */
export function claimDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'connect-payments.lock');
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(fs.readFileSync(lockFile, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${owner}. ` +
            'Stop that process, or use the operator API (/admin/v1) of the running server.',
          { cause: error },
        );
      }
      fs.rmSync(lockFile, { force: true });
    }
  }
}

/** Whether process `pid` runs (EPERM: it does, as another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
