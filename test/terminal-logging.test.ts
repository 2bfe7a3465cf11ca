import { describe, expect, it } from 'vitest';
import { terminalLogging } from '../src/logging.js';

describe('logs a person can read', () => {
  it('at a terminal: pretty, colourised lines through pino-pretty', () => {
    expect(terminalLogging({ isTTY: true })).toEqual({
      transport: { target: 'pino-pretty', options: expect.objectContaining({ colorize: true }) },
    });
    expect(() => import.meta.resolve('pino-pretty')).not.toThrow();
  });

  it('anywhere else (a pipe, a file, a collector): pino\'s JSON lines, unchanged', () => {
    expect(terminalLogging({ isTTY: false })).toEqual({});
    expect(terminalLogging({})).toEqual({});
  });
});
