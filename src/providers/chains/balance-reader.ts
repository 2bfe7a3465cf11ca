/**
 * What reconciliation reads from one network: balances now, in base units. Throws when the node does not
 * answer (the network is then reported unavailable, never as a drift).
 */
export interface BalanceReader {
  /**
   * The EIP-155 chain id the endpoint serves: balances read on another chain would be somebody else's. Absent where
   * the catalog names none (Solana).
   */
  chainId?(): Promise<number>;
  /** What each of `holders` holds of the network's native asset (`token` null) or of a token contract. */
  balances(token: string | null, holders: readonly string[]): Promise<bigint[]>;
}
