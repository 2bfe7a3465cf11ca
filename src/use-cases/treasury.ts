import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import type { NetworkPolicy, TreasuryPolicy } from '../domain/treasury-policy.js';
import type { Database } from '../store/database.js';
import { pauseTreasury, resumeTreasury, treasuryPauses, type TreasuryPause } from '../store/treasury.js';

/** One network of the treasury policy, and whether its sweeping is paused. */
export interface TreasuryNetwork {
  policy: NetworkPolicy;
  pause: TreasuryPause | null;
}

/**
 * The operator's hand on sweeping (docs/treasury.md): the networks the policy names, each paused or not. A pause
 * is stored, so every process stops planning sweeps for the network until it is resumed; sweeps already sent
 * are followed to their end either way (money in flight is never abandoned).
 */
export class Treasury {
  constructor(
    private readonly db: Database,
    readonly policy: TreasuryPolicy,
    private readonly clock: Clock,
  ) {}

  async networks(): Promise<TreasuryNetwork[]> {
    const pauses = new Map((await treasuryPauses(this.db)).map((pause) => [pause.network, pause]));
    return this.policy.networks().map((policy) => ({ policy, pause: pauses.get(policy.network) ?? null }));
  }

  async pause(network: string, reason: string | undefined): Promise<TreasuryNetwork> {
    const policy = this.named(network);
    return { policy, pause: await pauseTreasury(this.db, network, reason ?? 'paused by the operator', this.clock.now()) };
  }

  async resume(network: string): Promise<TreasuryNetwork> {
    const policy = this.named(network);
    await resumeTreasury(this.db, network);
    return { policy, pause: null };
  }

  private named(network: string): NetworkPolicy {
    const policy = this.policy.network(network);
    if (!policy) {
      const named = this.policy.networks().map((n) => n.network).join(', ') || 'none (CONNECT_TREASURY_FILE is not set)';
      throw new DomainError('resource_not_found', `${network} is not a network of the treasury policy (those: ${named}).`, 'network');
    }
    return policy;
  }
}
