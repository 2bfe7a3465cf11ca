import { InvalidArgumentError, type Command } from 'commander';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { DomainError } from '../domain/errors.js';
import type { AssetNetworkPair } from '../domain/organizations.js';
import { schemaFailureCode } from '../http/error-handler.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, parseLimit } from '../http/pagination.js';

export function integer(value: string): number {
  const number = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(number)) throw new InvalidArgumentError('Expected an integer.');
  return number;
}

export function commaList(value: string): string[] {
  return value.split(',').map((item) => item.trim());
}

/** `ASSET:network`, the way the catalog names a pair; repeatable, so each value adds to the previous ones. */
export function pair(value: string, previous: AssetNetworkPair[] = []): AssetNetworkPair[] {
  const [asset, network, extra] = value.split(':');
  if (!asset || !network || extra !== undefined) throw new InvalidArgumentError('Expected ASSET:network, e.g. USDT:tron.');
  return [...previous, { asset, network }];
}

/**
 * Checks a request body against the admin API's own schema, so the CLI accepts exactly what the API
 * accepts and refuses the rest with the API's code and param, naming the flag the caller typed.
 */
export function checked<S extends TSchema>(schema: S, body: unknown): Static<S> {
  const [first] = Value.Errors(schema, body);
  if (first === undefined) return body as Static<S>;
  const path = first.instancePath.split('/').filter(Boolean);
  // Settings are nested in the API body but are flat flags here (--intent-ttl-seconds).
  const flag = `--${(path.find((part) => part !== 'settings') ?? '').replaceAll('_', '-')}`;
  const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
  throw new DomainError(
    schemaFailureCode(first.keyword),
    `${flag} ${first.message}${allowed ? `: ${allowed.join(', ')}` : ''}.`,
    path.join('.'),
  );
}

/** The API's own rule for `limit`; kept a string, as the API receives it (pageRequest clamps it). */
function pageSize(value: string): string {
  try {
    parseLimit(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  return value;
}

export interface PageOptions {
  limit?: string;
  cursor?: string;
}

export function withPageOptions(command: Command): Command {
  return command
    .option('--limit <n>', `page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`, pageSize)
    .option('--cursor <cursor>', 'the cursor printed with the previous page, for the next one');
}
