import { InvalidArgumentError, type Command } from 'commander';
import type { AssetNetworkPair } from '../domain/organizations.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, parseLimit } from '../domain/page-size.js';

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
