/**
 * How a chain without nonces states a signed transaction's deadline against its final point (docs/money-out.md,
 * "Chains without nonces: expiring transactions"): Solana's last valid block height, Tron's expiration time in ms.
 */
export type Deadline = { kind: 'last_valid_height'; height: bigint } | { kind: 'expiration_ms'; at: bigint };
