import { randomInt } from 'node:crypto';
import { derivedUuid } from './ids.js';

/**
 * The ledger's shape. An owner (the organization, or one of its profiles) holds `available` funds (what it
 * can spend) and `reserved` funds (held by payouts in flight) per asset and network; per tenant, `world` is
 * the outside (the chains: deposits come from it, payouts go to it) and `fees` collects fees. Every transfer's
 * postings sum to zero per asset.
 */
export type AccountKind = 'available' | 'reserved' | 'world' | 'fees';

/**
 * Shards of an organization's treasury `available` account. Deposits to one treasury credit a shard picked at
 * random, so concurrent credits rarely wait on the same row lock; the balance is the sum of the shards.
 * Per-user (profile) accounts see little concurrency and use one shard.
 */
export const TREASURY_SHARDS = 16;

export function creditShard(profileId: string | null): number {
  return profileId === null ? randomInt(TREASURY_SHARDS) : 0;
}

/** Causes: what a transfer is for, unique per tenant, so the same cause never posts twice. */
export const depositCause = (identity: { network: string; txHash: string; outputIndex: number; round?: number }) =>
  `deposit:${identity.network}:${identity.txHash}:${identity.outputIndex}${(identity.round ?? 1) > 1 ? `:${identity.round}` : ''}`;

/**
 * The world account of a tenant's asset on a network has a fixed id derived from what it is, so a transfer
 * can name it without looking it up (and without locking it: it keeps no running balance).
 */
export const worldAccountId = (organizationId: string, mode: string, asset: string, network: string) =>
  derivedUuid('connect-payments/world-account/v1', organizationId, mode, asset, network);

/** What an owner (or a tenant) holds in one asset on one network: decimal strings, summed over shards. */
export interface Holding {
  asset: string;
  network: string;
  available: string;
  reserved: string;
}
