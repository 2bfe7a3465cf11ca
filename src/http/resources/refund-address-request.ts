import { Type, type Static } from 'typebox';
import { REFUND_LINK_TTL_SECONDS, refundAddressStatus } from '../../domain/refund-address-requests.js';
import type { RefundAddressRequestView } from '../../use-cases/refund-address-requests.js';
import { iso, isoOrNull, Nullable, NullableTimestamp, Timestamp, Uuid } from '../schemas.js';

export const CreateRefundAddressRequestBody = Type.Object(
  {
    expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: REFUND_LINK_TTL_SECONDS.min,
        maximum: REFUND_LINK_TTL_SECONDS.max,
        description: `How long the link stays usable: ${REFUND_LINK_TTL_SECONDS.min} s to ${REFUND_LINK_TTL_SECONDS.max} s (30 days); default ${REFUND_LINK_TTL_SECONDS.default} (7 days).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const RefundAddressRequest = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('refund_address_request'),
    payment_intent_id: Uuid,
    url: Nullable(
      Type.String({
        description:
          'The single-use link to send the payer. Only in the answer that created the request: the link is stored hashed, ' +
          'so later reads, and a replay of that answer under its Idempotency-Key (header Idempotent-Replay-Withheld: url), answer null.',
      }),
    ),
    status: Type.Union([Type.Literal('open'), Type.Literal('submitted'), Type.Literal('expired'), Type.Literal('cancelled')], {
      description: 'open → submitted (the payer gave an address), cancelled, or expired (open past expires_at).',
    }),
    networks: Type.Array(Type.Object({ asset: Type.String(), network: Type.String() }), {
      description: 'The pairs the payer may choose: those the intent received money on when the request was made.',
    }),
    asset: Nullable(Type.String({ description: 'The pair the payer chose; null until submitted.' })),
    network: Nullable(Type.String()),
    address: Nullable(Type.String({ description: "The payer's address, checked with the network's codec (checksums included)." })),
    submitted_at: NullableTimestamp,
    expires_at: Timestamp,
    created_at: Timestamp,
  },
  { title: 'RefundAddressRequest' },
);

export function presentRefundAddressRequest(view: RefundAddressRequestView, now: Date): Static<typeof RefundAddressRequest> {
  return {
    id: view.id,
    object: 'refund_address_request',
    payment_intent_id: view.payment_intent_id,
    url: view.url,
    status: refundAddressStatus(view, now),
    networks: view.networks.map(({ asset, network }) => ({ asset, network })),
    asset: view.asset,
    network: view.network,
    address: view.address,
    submitted_at: isoOrNull(view.submitted_at),
    expires_at: iso(view.expires_at),
    created_at: iso(view.created_at),
  };
}
