import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** A logger that keeps every line it writes, from `level` up, for a test to read: what an operator would see. */
export interface RecordedLog {
  log: Logger;
  /** Every line as written (JSON), in order. */
  lines: string[];
  /** The lines at error level or above, parsed. */
  errors(): Record<string, unknown>[];
}

export function recordingLog(level: pino.Level = 'debug'): RecordedLog {
  const lines: string[] = [];
  const log = pino({ level }, new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
  return {
    log,
    lines,
    errors: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => (entry.level as number) >= 50),
  };
}
