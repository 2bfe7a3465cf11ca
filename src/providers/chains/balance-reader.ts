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
  /**
   * The head the answering node claims, where balances can be read at a block number; absent where the endpoint reads
   * only its latest state (Tron's JSON-RPC, Solana).
   */
  height?(): Promise<bigint>;
  /**
   * What each of `holders` holds of the network's native asset (`token` null) or of a token contract, at block
   * `at` (a node without that block refuses) or, without it, at whatever the answering node has.
   */
  balances(token: string | null, holders: readonly string[], at?: bigint): Promise<bigint[]>;
}
