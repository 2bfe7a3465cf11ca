import { Type, type Static } from 'typebox';
import { toDecimalString } from '../../domain/money.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../domain/transactions.js';
import type { TransactionRow } from '../../store/transactions.js';
import { iso, Timestamp, Uuid } from '../schemas.js';


export const Transaction = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('transaction'),
    type: Type.Enum(TRANSACTION_TYPES),
    status: Type.Enum(TRANSACTION_STATUSES),
    asset: Type.String(),
    amount: Type.String({ description: 'Decimal string; for a payout or a refund, what left the balance (amount sent plus network fee).' }),
    fee: Type.Optional(Type.String({ description: 'Payouts and refunds: the network fee paid, in the asset (decimal string).' })),
    created_at: Timestamp,
    external_ref: Type.Optional(Type.String()),
    network: Type.Optional(Type.String()),
    from_address: Type.Optional(Type.String()),
    to_address: Type.Optional(Type.String()),
    tx_hash: Type.Optional(Type.String()),
    completed_at: Type.Optional(Timestamp),
    payment_intent_id: Type.Union([Uuid, Type.Null()], { description: 'The intent this row credits; null for other origins (a refund included).' }),
    refund: Type.Optional(
      Type.Object(
        { id: Uuid, payment_intent_id: Uuid },
        { description: 'Refund rows only: the refund (GET /refunds/{id}) and the payment intent it refunds.' },
      ),
    ),
  },
  { title: 'Transaction' },
);

const optional = <K extends string>(key: K, value: string | null) => (value === null ? {} : ({ [key]: value } as Record<K, string>));

export function presentTransaction(row: TransactionRow): Static<typeof Transaction> {
  return {
    id: row.id,
    object: 'transaction',
    type: row.type,
    status: row.status,
    asset: row.asset,
    amount: toDecimalString(row.amount),
    ...optional('fee', row.fee && toDecimalString(row.fee)),
    created_at: iso(row.created_at),
    ...optional('external_ref', row.external_ref),
    ...optional('network', row.network),
    ...optional('from_address', row.from_address),
    ...optional('to_address', row.to_address),
    ...optional('tx_hash', row.tx_hash),
    ...optional('completed_at', row.completed_at && iso(row.completed_at)),
    payment_intent_id: row.payment_intent_id,
    ...(row.refund_id !== null && { refund: { id: row.refund_id, payment_intent_id: row.refund_payment_intent_id! } }),
  };
}
