import { Type, type Static } from 'typebox';
import { toDecimalString } from '../../domain/money.js';
import { PAYOUT_STATUSES } from '../../domain/payouts.js';
import type { PayoutRow, QuoteRow } from '../../store/payouts.js';
import type { QuoteView } from '../../use-cases/payout-quotes.js';
import { AmountInput, CodeText, ExternalRefText, iso, isoOrNull, Nullable, NullableTimestamp, RequestText, Timestamp, Uuid } from '../schemas.js';

const DecimalText = (description: string) => Type.String({ description: `${description} Decimal string.` });

export const QuoteBody = Type.Object(
  {
    destination: RequestText(128, { description: "The recipient's address on the chosen network, exactly as the recipient gave it." }),
    asset: CodeText('Asset code, e.g. USDC.'),
    amount: AmountInput('What the recipient gets; the network fee comes on top. A decimal string is preferred.'),
    external_ref: Type.Optional(ExternalRefText("Whose balance pays: this end user's; omit for the organization's.")),
    network_hint: Type.Optional(CodeText('Send on this network; omit to let the service pick the cheapest one the balance covers.')),
  },
  { additionalProperties: false },
);

/** The body that executes a quote: its id (the contract's 1 to 128 characters). */
export const executeBody = (description: string) =>
  Type.Object({ quote_id: Type.String({ minLength: 1, maxLength: 128, description }) }, { additionalProperties: false });

export const ExecuteBody = executeBody('The quote to execute.');

export const Route = Type.Object({
  type: Type.Literal('native', { description: 'How the funds travel; `native`: a plain transfer on one network.' }),
  from_network: Type.String(),
  to_network: Type.String(),
  estimated_seconds: Type.Integer(),
});

export const PayoutQuote = Type.Object(
  {
    quote_id: Type.String(),
    object: Type.Literal('payout_quote'),
    expires_at: Timestamp,
    user_sends: DecimalText('What leaves the balance: amount plus network fee.'),
    recipient_gets: DecimalText('What the recipient receives.'),
    fee_total_usd: DecimalText('The network fee in USD.'),
    route: Route,
    recommendation: Type.Optional(
      Type.Object({
        message: Type.String(),
        alternative_route: Type.Object({
          type: Type.Literal('native'),
          network: Type.String(),
          fee_total_usd: Type.String(),
          savings_usd: Type.String(),
        }),
      }),
    ),
    insufficient_funds: Type.Optional(
      Type.Object({
        needed: DecimalText('How much more the balance needs on the route’s network.'),
        asset: Type.String(),
        network_with_lowest_top_up_fee: Type.String(),
      }),
    ),
  },
  { title: 'PayoutQuote' },
);

const QuoteOfPayout = Type.Object({
  quote_id: Type.String(),
  user_sends: Type.String(),
  recipient_gets: Type.String(),
  fee_total_usd: Type.String(),
  route: Route,
});

export const Payout = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('payout'),
    status: Type.Enum(PAYOUT_STATUSES, { description: 'pending → processing → completed | failed; only forward. Ignore unknown values.' }),
    quote: QuoteOfPayout,
    estimated_delivery_at: Timestamp,
    tracking_url: Type.String(),
    external_ref: Nullable(Type.String()),
    destination: Type.String(),
    asset: Type.String(),
    network: Type.String(),
    tx_hash: Nullable(Type.String()),
    failure_reason: Nullable(Type.String()),
    created_at: Timestamp,
    completed_at: NullableTimestamp,
    failed_at: NullableTimestamp,
  },
  { title: 'Payout' },
);

const route = (row: Pick<QuoteRow, 'network' | 'estimated_seconds'>) => ({
  type: 'native' as const,
  from_network: row.network,
  to_network: row.network,
  estimated_seconds: row.estimated_seconds,
});

export function presentQuote(view: QuoteView): Static<typeof PayoutQuote> {
  const { quote } = view;
  return {
    quote_id: quote.id,
    object: 'payout_quote',
    expires_at: iso(quote.expires_at),
    user_sends: toDecimalString(quote.user_sends),
    recipient_gets: toDecimalString(quote.amount),
    fee_total_usd: toDecimalString(quote.fee_total_usd),
    route: route(quote),
    ...(view.recommendation && {
      recommendation: {
        message: `Sending on ${view.recommendation.network} costs ${view.recommendation.savingsUsd.toFixed()} USD less in network fees.`,
        alternative_route: {
          type: 'native' as const,
          network: view.recommendation.network,
          fee_total_usd: view.recommendation.feeUsd.toFixed(),
          savings_usd: view.recommendation.savingsUsd.toFixed(),
        },
      },
    }),
    ...(view.insufficientFunds && {
      insufficient_funds: {
        needed: view.insufficientFunds.needed.toFixed(),
        asset: quote.asset,
        network_with_lowest_top_up_fee: view.insufficientFunds.networkWithLowestTopUpFee,
      },
    }),
  };
}

/** Every field present, null where it does not apply (yet), like the intent envelope. */
export function presentPayout(row: PayoutRow, trackingBaseUrl: string): Static<typeof Payout> {
  return {
    id: row.id,
    object: 'payout',
    status: row.status,
    quote: {
      quote_id: row.quote_id,
      user_sends: toDecimalString(row.user_sends),
      recipient_gets: toDecimalString(row.amount),
      fee_total_usd: toDecimalString(row.fee_total_usd),
      route: route(row),
    },
    estimated_delivery_at: iso(row.estimated_delivery_at),
    tracking_url: `${trackingBaseUrl}/payouts/${row.id}`,
    external_ref: row.external_ref,
    destination: row.destination,
    asset: row.asset,
    network: row.network,
    tx_hash: row.tx_hash,
    failure_reason: row.failure_reason,
    created_at: iso(row.created_at),
    completed_at: isoOrNull(row.completed_at),
    failed_at: isoOrNull(row.failed_at),
  };
}
