import { Type, type Static } from 'typebox';
import { PAYOUT_STATUSES } from '../../domain/payouts.js';
import { refundObject, type RefundRecord } from '../../domain/refunds.js';
import type { RefundQuoteView } from '../../use-cases/refunds.js';
import { executeBody, Route } from './payout.js';
import { AmountInput, CodeText, iso, Nullable, NullableTimestamp, RequestText, Timestamp, Uuid } from '../schemas.js';

const DecimalText = (description: string) => Type.String({ description: `${description} Decimal string.` });
const NetworkFee = Type.Union(
  [Type.Literal('deducted'), Type.Literal('on_top')],
  {
    description:
      'Who pays the network fee. `deducted`: the payer receives `amount` less the fee, and the balance pays `amount`. ' +
      '`on_top`: the payer receives `amount`, and the balance pays `amount` plus the fee.',
  },
);

/** As the migration's check on refund_reason. */
const MAX_REFUND_REASON = 500;

export const RefundQuoteBody = Type.Object(
  {
    amount: Type.Optional(AmountInput('How much to refund, in the refunded asset (decimal string preferred). Omit to use `portion`.')),
    portion: Type.Optional(
      Type.Union([Type.Literal('all'), Type.Literal('excess')], {
        description: 'Without `amount`: `all` (the default) refunds everything still refundable on the pair; `excess` only the unrefunded overpayment.',
      }),
    ),
    asset: Type.Optional(CodeText('The asset the intent received the money in; required when it received on more than one pair.')),
    network: Type.Optional(CodeText('The network the intent received the money on; required when it received on more than one pair.')),
    destination: Type.Optional(
      RequestText(128, {
        description:
          "The payer's address on that network, checked with the network's codec (checksums included). Never defaulted to the deposit's sender. " +
          'Give it, or `refund_address_id`.',
      }),
    ),
    refund_address_id: Type.Optional(
      RequestText(64, {
        description:
          'A refund address request of this intent through which the payer submitted an address: the refund goes there, on the asset and network the payer chose.',
      }),
    ),
    network_fee: NetworkFee,
    reason: Type.Optional(RequestText(MAX_REFUND_REASON, { description: `Why, for your records (at most ${MAX_REFUND_REASON} characters).` })),
  },
  { additionalProperties: false },
);

export const ExecuteRefundBody = executeBody('The refund quote to execute.');

export const RefundQuote = Type.Object(
  {
    quote_id: Type.String(),
    object: Type.Literal('refund_quote'),
    payment_intent_id: Uuid,
    expires_at: Timestamp,
    asset: Type.String(),
    network: Type.String(),
    destination: Type.String(),
    amount: DecimalText('Refunded against the intent, in the asset.'),
    amount_counted: DecimalText("The same in the intent's currency, at the rate the intent counted this pair's money."),
    network_fee: NetworkFee,
    fee: DecimalText('The network fee, in the asset.'),
    fee_total_usd: DecimalText('The network fee in USD.'),
    recipient_gets: DecimalText('What the payer receives.'),
    owner_pays: DecimalText('What leaves the balance.'),
    refundable: DecimalText('What the intent could still refund on this asset and network before this refund.'),
    reason: Nullable(Type.String()),
    route: Route,
    insufficient_funds: Type.Optional(
      Type.Object({
        needed: DecimalText('How much more the balance needs on the network.'),
        asset: Type.String(),
        network: Type.String(),
      }),
    ),
  },
  { title: 'RefundQuote' },
);

export const Refund = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('refund'),
    payment_intent_id: Uuid,
    status: Type.Enum(PAYOUT_STATUSES, { description: 'pending → processing → completed | failed; only forward. Ignore unknown values.' }),
    asset: Type.String(),
    network: Type.String(),
    amount: DecimalText('Refunded against the intent, in the asset.'),
    amount_counted: DecimalText("The same in the intent's currency (what the intent's `amount_refunded` sums)."),
    network_fee: NetworkFee,
    fee: DecimalText('The network fee, in the asset.'),
    recipient_gets: DecimalText('What the payer receives.'),
    owner_pays: DecimalText('What leaves the balance.'),
    destination: Type.String(),
    reason: Nullable(Type.String()),
    tx_hash: Nullable(Type.String()),
    failure_reason: Nullable(Type.String()),
    external_ref: Nullable(Type.String({ description: "The intent's end user, whose balance pays; null: the organization's." })),
    quote_id: Type.String(),
    created_at: Timestamp,
    completed_at: NullableTimestamp,
    failed_at: NullableTimestamp,
  },
  { title: 'Refund' },
);

export function presentRefundQuote(view: RefundQuoteView): Static<typeof RefundQuote> {
  const { quote } = view;
  return {
    quote_id: quote.id,
    object: 'refund_quote',
    payment_intent_id: quote.payment_intent_id!,
    expires_at: iso(quote.expires_at),
    asset: quote.asset,
    network: quote.network,
    destination: quote.destination,
    amount: quote.refund_amount!,
    amount_counted: quote.refund_amount_counted!,
    network_fee: quote.refund_network_fee!,
    fee: quote.fee,
    fee_total_usd: quote.fee_total_usd,
    recipient_gets: quote.amount,
    owner_pays: quote.user_sends,
    refundable: view.refundable.toFixed(),
    reason: quote.refund_reason,
    route: { type: 'native', from_network: quote.network, to_network: quote.network, estimated_seconds: quote.estimated_seconds },
    ...(view.insufficientFunds && { insufficient_funds: { needed: view.insufficientFunds.toFixed(), asset: quote.asset, network: quote.network } }),
  };
}

/** Every field present, null where it does not apply (yet); the same object as the refund events carry. */
export const presentRefund = (row: RefundRecord): Static<typeof Refund> => refundObject(row);
