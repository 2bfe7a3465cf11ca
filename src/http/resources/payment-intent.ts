import { Type, type Static } from 'typebox';
import { discrepancyOf, intentMoney } from '../../domain/discrepancies.js';
import { toNumber, ZERO } from '../../domain/money.js';
import { amountRemaining } from '../../domain/payment-intents.js';
import type { IntentView } from '../../use-cases/payment-intents.js';
import { presentRefund, Refund } from './refund.js';
import { AmountInput, CodeText, ExternalRefText, iso, isoOrNull, Nullable, NullableTimestamp, RequestText, Timestamp, Uuid } from '../schemas.js';
import { MAX_DESCRIPTION, MAX_METADATA_KEY, MAX_METADATA_KEYS, MAX_METADATA_VALUE } from '../../domain/payment-intents.js';

const MetadataValue = Type.Union([RequestText(MAX_METADATA_VALUE), Type.Number(), Type.Boolean(), Type.Null()]);
export const Metadata = Type.Record(Type.String(), MetadataValue, {
  description: `At most ${MAX_METADATA_KEYS} keys of 1 to ${MAX_METADATA_KEY} characters; string values at most ${MAX_METADATA_VALUE} characters.`,
  maxProperties: MAX_METADATA_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_METADATA_KEY },
});

export const CreatePaymentIntentBody = Type.Object(
  {
    amount: AmountInput('Amount in the primary currency; a decimal string is preferred (at most 15 significant digits).'),
    currencies: Type.Array(CodeText('Asset code.'), { description: 'Asset codes in priority order (1 to 10); the first is the primary currency.' }),
    external_ref: Type.Optional(Nullable(ExternalRefText('Selects the whitelabel flow: the end user whose balance is credited.'))),
    description: Type.Optional(Nullable(RequestText(MAX_DESCRIPTION))),
    metadata: Type.Optional(Nullable(Metadata)),
  },
  { additionalProperties: false },
);

export const Deposit = Type.Object({
  amount_received: Type.Number({ description: 'Amount of THIS credit, not cumulative.' }),
  currency: Type.String(),
  network: Type.String(),
  address_receiver: Type.String(),
  address_sender: Type.String(),
  tx_hash: Type.String(),
});

export const Discrepancy = Type.Object(
  {
    type: Type.Union([Type.Literal('overpaid'), Type.Literal('underpaid'), Type.Literal('paid_late')], {
      description: 'overpaid: completed with more than asked; underpaid: expired with a partial payment; paid_late: expired, yet paid in full. Ignore unknown values.',
    }),
    amount: Type.Number({ description: "In the intent's currency: the excess (overpaid), what is missing (underpaid), or everything received (paid_late)." }),
    status: Type.Union([Type.Literal('open'), Type.Literal('accepted'), Type.Literal('refunded')], {
      description: 'open: to decide; accepted: kept as it is (POST /payment-intents/{id}/discrepancy/accept); refunded: refunds cover it.',
    }),
    accepted_at: NullableTimestamp,
    note: Nullable(Type.String({ description: 'The note given with the acceptance.' })),
  },
  { description: 'Null until the intent is settled (completed or expired) with money that does not match its amount.' },
);

export const AcceptDiscrepancyBody = Type.Object(
  { note: Type.Optional(Nullable(RequestText(MAX_DESCRIPTION, { description: 'Why the discrepancy is kept, for the record (at most 500 characters).' }))) },
  { additionalProperties: false },
);

export const PaymentIntent = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('payment_intent'),
    amount: Type.Number(),
    currency: Type.String(),
    status: Type.String({ description: 'pending, completed, expired, failed (reserved). Ignore unknown values.' }),
    ref_code: Type.String({ minLength: 5, maxLength: 5 }),
    external_ref: Nullable(Type.String()),
    description: Nullable(Type.String()),
    metadata: Nullable(Metadata),
    addresses: Type.Array(
      Type.Object({ asset: Type.String(), network: Nullable(Type.String()), address: Type.String() }),
    ),
    created_at: Timestamp,
    expires_at: Timestamp,
    completed_at: NullableTimestamp,
    deposit: Nullable(Deposit),
    amount_received: Type.Number(),
    amount_remaining: Type.Number(),
    partial_payment: Type.Boolean(),
    amount_refunded: Type.Number({ description: "In the intent's currency: the `amount_counted` of its refunds that did not fail." }),
    refunds: Type.Array(Refund, { description: 'Its refunds, oldest first; empty when none.' }),
    discrepancy: Nullable(Discrepancy),
  },
  { title: 'PaymentIntent' },
);

/** The envelope: every field present, null where it does not apply; expiry is decided at read time. */
export function presentIntent(view: IntentView, now: Date): Static<typeof PaymentIntent> {
  const money = intentMoney(view, now);
  const { status, received } = money;
  const deposit = view.last_deposit;
  const discrepancy = discrepancyOf(money);
  return {
    id: view.id,
    object: 'payment_intent',
    amount: toNumber(view.amount),
    currency: view.currency,
    status,
    ref_code: view.ref_code,
    external_ref: view.external_ref,
    description: view.description,
    metadata: view.metadata as Static<typeof Metadata> | null,
    addresses: view.addresses.map((a) => ({ asset: a.asset, network: a.network, address: a.address })),
    created_at: iso(view.created_at),
    expires_at: iso(view.expires_at),
    completed_at: isoOrNull(view.completed_at),
    deposit: deposit && { ...deposit, amount_received: toNumber(deposit.amount_received) },
    amount_received: toNumber(view.amount_received),
    amount_remaining: toNumber(amountRemaining(money.amount, received)),
    partial_payment: status === 'pending' && received.gt(ZERO),
    amount_refunded: toNumber(money.refunded),
    refunds: view.refunds.map(presentRefund),
    discrepancy: discrepancy && {
      type: discrepancy.type,
      amount: toNumber(discrepancy.amount),
      status: discrepancy.status,
      accepted_at: discrepancy.acceptance?.accepted_at ?? null,
      note: discrepancy.acceptance?.note ?? null,
    },
  };
}
