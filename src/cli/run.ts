import { Command, CommanderError } from 'commander';
import { pino } from 'pino';
import { loadConfig, type Config } from '../config.js';
import { createContext, openDatabase } from '../context.js';
import { DomainError } from '../domain/errors.js';
import type { AppContext } from '../http/context.js';
import type { Database } from '../store/database.js';
import { keyCommands } from './keys.js';
import { ledgerCommands } from './ledger.js';
import { organizationCommands } from './organizations.js';
import { webhookCommands } from './webhooks.js';
import { workerCommand } from './worker.js';

export interface Output {
  write(text: string): unknown;
}

export interface CliIo {
  stdout: Output;
  stderr: Output;
}

/** Opens the database the verbs run on; runCli closes it once the verb is done. */
export type OpenDatabase = (config: Config) => Promise<Database>;

/** One verb: what it resolves to is printed, and is the admin API's response body for the same call. */
export type Verb = (ctx: AppContext) => Promise<unknown>;
export type RunVerb = (verb: Verb) => Promise<void>;

/** Commander's own failures (unknown verb, missing or malformed option) are the caller's usage errors. */
const USAGE_ERROR = 2;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Runs one command line; resolves to the process exit code instead of exiting, so tests can run it in-process. */
export async function runCli(argv: readonly string[], io: CliIo, open: OpenDatabase = openDatabase): Promise<number> {
  // Subcommands copy these settings when they are created, so they are set before any is added.
  const program = new Command('connect-payments')
    .description('Operate Connect Payments: organizations, API keys, webhooks, the ledger and background workers, on the configured database.')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });

  // The database is opened only once a verb has parsed: --help and usage errors never touch it.
  const run: RunVerb = async (verb) => {
    const config = loadConfig();
    const db = await open(config);
    try {
      // Stdout carries the verb's JSON; a Redis outage is reported beside it, on stderr.
      const ctx = await createContext(config, db, { redisLog: pino({ level: config.logLevel }, io.stderr) });
      try {
        io.stdout.write(json(await verb(ctx)));
      } finally {
        await ctx.limiter.close();
      }
    } finally {
      await db.close();
    }
  };
  organizationCommands(program, run);
  keyCommands(program, run);
  ledgerCommands(program, run);
  webhookCommands(program, run);
  workerCommand(program, run);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return report(error, io.stderr);
  }
}

function report(error: unknown, stderr: Output): number {
  // Commander has already printed its message (or the help that was asked for).
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_ERROR;
  if (error instanceof DomainError) {
    stderr.write(json({ error: { code: error.code, message: error.message, param: error.param } }));
  } else {
    stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  }
  return 1;
}
