/**
 * What every CLI verb is given to run with (run.ts builds them once per command line): the type module the verb
 * files share, so none of them imports run.ts, which imports them all.
 */
import type { AppContext } from '../context.js';
import type { AdminCall } from './operator-api.js';

/**
 * An operator verb: one operator API call, whose answer is printed. `check` may refuse a successful answer
 * (the ledger verification that found a mismatch) by throwing.
 */
export type RunVerb = (call: AdminCall, check?: (answer: unknown) => void, output?: VerbOutput) => Promise<void>;

/**
 * How a verb prints its answer when not as JSON (`text`), and what still fails it once printed (`failure`: a
 * message for stderr and exit code 1, as `reconcile` does on a shortfall).
 */
export interface VerbOutput {
  text?: (answer: unknown) => string;
  failure?: (answer: unknown) => string | null;
}
/** A verb whose answer is a file (a statement): streamed to `out`, or to stdout when no file is named. */
export type RunDownload = (call: AdminCall, out: string | undefined) => Promise<void>;
/** A verb that needs the database itself, not the API (the worker); what it resolves to is printed. */
export type RunLocal = (verb: (ctx: AppContext) => Promise<unknown>) => Promise<void>;
