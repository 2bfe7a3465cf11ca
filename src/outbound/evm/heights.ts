import type { EvmPayoutDriver } from '../../providers/chains/evm-payout-driver.js';
import { linkedHeight } from '../../store/chain-watch.js';
import type { Database } from '../../store/database.js';

/**
 * The highest head any answer showed for each network, or the deposit watchers' linked chain did. State and fees
 * are read at it, by number: a backend behind it refuses (a node without a block answers no state for it) instead
 * of answering an older state, such as a hot wallet without the tokens it received since (a payout failed that can
 * succeed), or a chain before the token contract was deployed (its transfer's gas estimated as a plain call's).
 */
export class ChainHeights {
  private readonly highest = new Map<string, bigint>();

  constructor(
    private readonly db: Database,
    private readonly driver: EvmPayoutDriver,
  ) {}

  /** The chain's head as far as any answer, or the watchers' linked chain, has shown it: never lower than one seen before. */
  async head(network: string): Promise<bigint> {
    const [answered, linked] = await Promise.all([this.driver.head(network), linkedHeight(this.db, network)]);
    const highest = [answered, linked ?? 0n, this.highest.get(network) ?? 0n].reduce((a, b) => (a > b ? a : b));
    this.highest.set(network, highest);
    return highest;
  }
}
