/**
 * One transfer out of the hot wallet, as a chain driver builds it: what to send where, and nothing of the payout's
 * state (its lease, its attempts), which the outbound engine keeps (src/outbound/).
 */
export interface PayoutTransfer {
  asset: string;
  network: string;
  destination: string;
  /** What the recipient gets, decimal string in the asset's unit. */
  amount: string;
}
