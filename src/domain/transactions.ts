/** The partner-visible ledger row kinds and their states (the contract's Transaction resource). */
export const TRANSACTION_TYPES = ['deposit', 'payout', 'refund', 'transfer', 'conversion', 'ramp'] as const;
export const TRANSACTION_STATUSES = ['pending', 'confirmed', 'failed'] as const;

export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
