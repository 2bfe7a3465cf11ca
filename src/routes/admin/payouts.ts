import { Type, type Static } from 'typebox';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { ListEnvelope, PageQuery } from '../../http/pagination.js';
import { oneOf, parseList } from '../../http/query.js';
import { Payout, presentPayout } from '../../http/resources/payout.js';
import { CodeText, errorResponses, isoOrNull, Nullable, NullableTimestamp, PathId, RequestText, Uuid } from '../../http/schemas.js';
import { LIVE_PAYOUT_LIST, NONCE_STATUSES, OPEN_STATUSES, TX_PURPOSES, type ChainView, type LivePayout, type LivePayoutView } from '../../use-cases/operator-payouts.js';
import { KeyMode } from './schemas.js';

const tags = ['operator'];
const Decimal = (description: string) => Nullable(Type.String({ description: `${description} A decimal string; null when the signed bytes were not kept.` }));
const Purpose = Type.Enum(TX_PURPOSES, { description: 'payout: the transfer (or its replacement at a higher fee); cancel: a zero-value transfer to the hot wallet; filler: the same, at a nonce no payout holds.' });

const SignedTransaction = Type.Object(
  {
    tx_hash: Type.String(),
    purpose: Purpose,
    max_fee_per_gas: Decimal('Wei per gas.'),
    max_priority_fee_per_gas: Decimal('Wei per gas.'),
    gas: Decimal('Gas limit.'),
  },
  { title: 'SignedTransaction' },
);

const Chain = Type.Object(
  {
    nonce: Type.Integer({ description: "The payout's nonce of the hot wallet." }),
    status: Type.Enum(NONCE_STATUSES, { description: 'allocated: nothing signed yet; signed; broadcast: the node took the current transaction.' }),
    fee_cap_wei: Nullable(Type.String({ description: 'The most gas × max fee per gas any transaction at the nonce may cost, in wei (a decimal string); null before the first signing.' })),
    broadcast_at: NullableTimestamp,
    tx_hash: Nullable(Type.String({ description: 'The current transaction: the one sent, and sent again.' })),
    purpose: Nullable(Purpose),
    transactions: Type.Array(SignedTransaction, { description: 'Every transaction signed at the nonce, newest first: any one of them may be the one mined.' }),
  },
  { title: 'PayoutChainState' },
);

const ExpiringTransaction = Type.Object(
  {
    tx_hash: Type.String({ description: 'The transaction id (Tron: 64 hex; Solana: the signature, base58).' }),
    signing: Type.Integer({ description: '1 for the first transaction signed for the payout; each next one only once the one before expired unlanded.' }),
    status: Type.Enum(['signed', 'broadcast', 'expired'] as const, {
      description: 'signed: recorded, not yet taken by a node; broadcast: a node took it; expired: past its deadline at the chain\'s final point and landed nowhere, so it never will.',
    }),
    deadline: Type.Object(
      {
        kind: Type.Enum(['expiration_ms', 'last_valid_height'] as const, { description: "expiration_ms: Tron's expiration (ms since the epoch); last_valid_height: Solana's last valid block height." }),
        value: Type.String({ description: 'A decimal string.' }),
      },
      { description: 'Past this point of the final chain, it can never land.' },
    ),
  },
  { title: 'ExpiringSignedTransaction' },
);

const Engine = Type.Object({
  attempts: Type.Integer({ description: 'Attempts the payout engine made.' }),
  last_error: Nullable(Type.String({ description: 'Why the last attempt left the payout open.' })),
  next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'When it is due again; while its lease is held, when the lease lapses; null once settled.' })),
  lease_held: Type.Boolean({ description: 'An attempt holds the payout now (or its process died and the lease has not lapsed yet).' }),
  cancel_requested_at: NullableTimestamp,
});

/** A live payout as the partner sees it, whose it is, and how the payout engine is getting on with it. */
export const LivePayoutSummary = Type.Object(
  {
    ...Payout.properties,
    organization_id: Uuid,
    mode: KeyMode,
    kind: Type.Union([Type.Literal('payout'), Type.Literal('refund')], { description: '`refund`: a refund of `payment_intent_id` (docs/refunds.md), worked as any payout.' }),
    payment_intent_id: Nullable(Uuid),
    engine: Engine,
  },
  { title: 'LivePayoutSummary' },
);

export const LivePayoutDetail = Type.Object(
  {
    ...LivePayoutSummary.properties,
    chain: Nullable(Chain),
    signed_transactions: Type.Array(ExpiringTransaction, {
      description: 'On chains without nonces (Tron, Solana): every transaction signed for the payout, first signed first; at most one is not expired. Empty on EVM networks.',
    }),
  },
  { title: 'LivePayoutDetail', description: '`chain` is null until the payout holds a nonce of the hot wallet (EVM networks only).' },
);

const PayoutParams = Type.Object({ payout_id: PathId });

const decimal = (value: bigint | undefined) => (value === undefined ? null : value.toString());

function presentChain(chain: ChainView): Static<typeof Chain> {
  return {
    nonce: chain.nonce,
    status: chain.status,
    fee_cap_wei: chain.fee_cap_wei,
    broadcast_at: isoOrNull(chain.broadcast_at),
    tx_hash: chain.tx_hash,
    purpose: chain.purpose,
    transactions: chain.transactions.map((tx) => ({
      tx_hash: tx.tx_hash,
      purpose: tx.purpose,
      max_fee_per_gas: decimal(tx.fees?.maxFeePerGas),
      max_priority_fee_per_gas: decimal(tx.fees?.maxPriorityFeePerGas),
      gas: decimal(tx.fees?.gas),
    })),
  };
}

export function adminPayoutRoutes(app: App, { operatorPayouts, cursors, config }: AppContext, partnerPrefix: string): void {
  const trackingBase = `${config.publicUrl}${partnerPrefix}`;
  const summary = (payout: LivePayout): Static<typeof LivePayoutSummary> => ({
    ...presentPayout(payout, trackingBase),
    organization_id: payout.organization_id,
    mode: payout.mode,
    kind: payout.kind,
    payment_intent_id: payout.payment_intent_id,
    engine: {
      attempts: payout.attempts,
      last_error: payout.last_error,
      next_attempt_at: isoOrNull(payout.next_attempt_at),
      lease_held: payout.lease_held,
      cancel_requested_at: isoOrNull(payout.cancel_requested_at),
    },
  });
  const detail = (view: LivePayoutView): Static<typeof LivePayoutDetail> => ({
    ...summary(view.payout),
    chain: view.chain && presentChain(view.chain),
    signed_transactions: view.expiring.map((tx) => ({
      tx_hash: tx.txId,
      signing: tx.signing,
      status: tx.status,
      deadline: tx.deadline.kind === 'expiration_ms' ? { kind: tx.deadline.kind, value: tx.deadline.at.toString() } : { kind: tx.deadline.kind, value: tx.deadline.height.toString() },
    })),
  });

  app.get(
    '/payouts',
    {
      config: { errors: ['catalog_invalid'] },
      schema: {
        summary: 'List open live payouts of every organization, oldest first',
        description: 'Live payouts still pending or processing, the one open longest first: where to look for a stuck one. Sandbox payouts are not listed.',
        tags,
        querystring: Type.Object({
          status: Type.Optional(RequestText(64, { description: `Comma-separated: ${OPEN_STATUSES.join(', ')} (default both).` })),
          network: Type.Optional(CodeText('Only the payouts on this network.')),
          ...PageQuery,
        }),
        response: { 200: ListEnvelope(LivePayoutSummary), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { query } = request;
      const statuses = parseList(query.status, 'status', oneOf(OPEN_STATUSES), OPEN_STATUSES.join(', '));
      const page = await operatorPayouts.list({ statuses, network: query.network }, cursors.pageRequest(LIVE_PAYOUT_LIST, query));
      return cursors.envelope(LIVE_PAYOUT_LIST, page, summary);
    },
  );

  app.get(
    '/payouts/:payout_id',
    {
      schema: {
        summary: "Get a live payout, its engine state and its transactions on chain",
        description: "Any organization's live payout, with the payout engine's state and the payout's nonce of the hot wallet with every transaction signed at it. Sandbox payouts are not found here.",
        tags,
        params: PayoutParams,
        response: { 200: LivePayoutDetail, ...errorResponses(401, 404) },
      },
    },
    async (request) => detail(await operatorPayouts.get(request.params.payout_id)),
  );

  app.post(
    '/payouts/:payout_id/cancel',
    {
      config: { errors: ['invalid_state'] },
      schema: {
        summary: 'Ask for an open live payout to be cancelled',
        description:
          'Recorded at once (`engine.cancel_requested_at`) and carried out by the payout engine at its next attempt: with nothing signed the payout fails and its funds are released; ' +
          "otherwise a zero-value transfer to the hot wallet is sent at its nonce, within its fee cap, and the payout fails once that is mined with its confirmations, or completes if its own transfer is mined first. 409 `invalid_state` for a payout already completed or failed.",
        tags,
        params: PayoutParams,
        response: { 202: LivePayoutDetail, ...errorResponses(401, 404, 409) },
      },
    },
    async (request, reply) => reply.code(202).send(detail(await operatorPayouts.cancel(request.params.payout_id))),
  );
}
