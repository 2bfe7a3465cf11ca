import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config.js';
import { DomainError } from '../domain/errors.js';
import type { SerializerCache } from '../http/serializers.js';
import { adminTokenCommand } from './admin-token.js';
import { depositCommands } from './deposits.js';
import { identifierCommands } from './identifiers.js';
import { keyCommands } from './keys.js';
import { ledgerCommands } from './ledger.js';
import { openOperatorApi, type OpenDatabase, type Output, type Sink } from './operator-api.js';
import { organizationCommands } from './organizations.js';
import { payoutCommands } from './payouts.js';
import { reconcileCommand } from './reconcile.js';
import { reportCommands } from './reports.js';
import type { RunDownload, RunLocal, RunVerb } from './verbs.js';
import { signerCommands } from './signer.js';
import { solanaCommands } from './solana.js';
import { treasuryCommands } from './treasury.js';
import { webhookCommands } from './webhooks.js';
import { xpubCommands } from './xpub.js';
import { workerCommand } from './worker.js';

export type { OpenDatabase, Output } from './operator-api.js';

export interface CliIo {
  stdout: Output;
  stderr: Output;
}

/** Commander's own failures (unknown verb, missing or malformed option) are the caller's usage errors. */
const USAGE_ERROR = 2;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

const openDatabase: OpenDatabase = async (config) => (await import('../context.js')).openDatabase(config);

/**
 * Runs one command line; resolves to the process exit code instead of exiting, so tests can run it in-process
 * (`serializers`: the response serializers this process has already compiled, for the operator API it serves itself).
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  open: OpenDatabase = openDatabase,
  env: NodeJS.ProcessEnv = process.env,
  serializers?: SerializerCache,
): Promise<number> {
  // Subcommands copy these settings when they are created, so they are set before any is added.
  const program = new Command('connect-payments')
    .description('Operate Connect Payments: organizations, API keys, webhooks, the ledger, stored identifiers, statements, quarantined deposits, Solana owner keys, live payouts, the chains reconciled against the ledger and background workers, on the configured database.')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });

  // Nothing is opened until a verb has parsed: --help and usage errors touch no database and no server.
  const run: RunVerb = async (call, check, output = {}) => {
    const api = await openOperatorApi(loadConfig(env), open, io.stderr, serializers);
    try {
      const answer = await api.call(call);
      check?.(answer);
      io.stdout.write(output.text ? output.text(answer) : json(answer));
      const failure = output.failure?.(answer);
      if (failure) throw new Error(failure);
    } finally {
      await api.close();
    }
  };
  const download: RunDownload = async (call, out) => {
    const api = await openOperatorApi(loadConfig(env), open, io.stderr, serializers);
    try {
      await api.download(call, out === undefined ? toOutput(io.stdout) : (chunks) => pipeline(chunks, fs.createWriteStream(out)));
    } finally {
      await api.close();
    }
  };
  const runLocal: RunLocal = async (verb) => {
    const config = loadConfig(env);
    const db = await open(config);
    try {
      const { createContext } = await import('../context.js');
      const ctx = await createContext(config, db);
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
  identifierCommands(program, run);
  webhookCommands(program, run);
  depositCommands(program, run);
  payoutCommands(program, run);
  reportCommands(program, download);
  solanaCommands(program, run);
  xpubCommands(program, run);
  treasuryCommands(program, run);
  reconcileCommand(program, run);
  workerCommand(program, runLocal);
  signerCommands(program, io.stdout, env);
  adminTokenCommand(program, () => loadConfig(env), io.stdout);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return report(error, io.stderr);
  }
}

/** Text as it arrives, decoded across chunk boundaries (a character may be split between two chunks). */
const toOutput =
  (output: Output): Sink =>
  async (chunks) => {
    const decoder = new TextDecoder();
    for await (const chunk of chunks) output.write(decoder.decode(chunk, { stream: true }));
    output.write(decoder.decode());
  };

function report(error: unknown, stderr: Output): number {
  // Commander has already printed its message (or the help that was asked for).
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_ERROR;
  if (error instanceof DomainError) {
    stderr.write(json({ error: { code: error.code, message: inFlagTerms(error.message), param: error.param } }));
  } else {
    stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  }
  return 1;
}

/**
 * The operator API names a refused body field (`Field "settings.intent_ttl_seconds" must be …`); the person at
 * the shell typed a flag, so the message names that instead (`--intent-ttl-seconds must be …`).
 */
function inFlagTerms(message: string): string {
  return message.replace(/^Field "([\w.]+)"/, (_match, param: string) => {
    // Settings are nested in the API body but flat flags here; array positions (scopes.1) are not part of a flag.
    const name = param.split('.').find((part) => part !== 'settings' && !/^\d+$/.test(part)) ?? param;
    return `--${name.replaceAll('_', '-')}`;
  });
}
