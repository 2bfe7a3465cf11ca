import { Type } from 'typebox';
import { notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { Address, presentAddress } from '../http/resources/address.js';
import { PaymentIntent, presentIntent } from '../http/resources/payment-intent.js';
import { Payout, presentPayout } from '../http/resources/payout.js';
import { presentRefund, Refund } from '../http/resources/refund.js';
import { errorEnvelope } from '../http/error-codes.js';
import { readIdempotencyKey } from '../http/idempotency.js';
import { checkPaymentIntentId, type IntentView } from '../use-cases/payment-intents.js';
import { PayoutStateConflict } from '../use-cases/sandbox-payouts.js';
import { AmountInput, CodeText, ErrorEnvelopeSchema, errorResponses, PARTNER_ERRORS, PathId } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

const tags = ['sandbox'];
const Amount = AmountInput('Decimal string preferred.');

const checkId = (id: string, what: string) => {
  if (!isUuid(id)) throw notFound(what);
};

/** Sandbox helpers: only sandbox keys see them; a live key is answered as if they did not exist. */
export function sandboxRoutes(app: App, { clock, config, idempotency, simulator, sandboxPayouts, refunds }: AppContext, partnerPrefix: string): void {
  app.post(
    '/test/payment-intents/:id/simulate-deposit',
    {
      config: { scope: 'intents:write', fundMoving: true, sandboxOnly: true, optionalBody: true, errors: ['invalid_payment_intent_id', 'resource_not_found', 'price_unavailable'] },
      // The body is optional: no body at all means "pay what remains".
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        summary: 'Simulate a deposit to a payment intent',
        description:
          'Without amount: pays what remains, in the primary currency on its first network, completing the intent. ' +
          'Once the intent is completed, calls change nothing and return it as it is, so no Idempotency-Key is needed to complete it. ' +
          'An optional Idempotency-Key makes a retried partial deposit safe: the same key and body replay the first answer.',
        tags,
        params: Type.Object({ id: PathId }),
        body: Type.Object(
          { amount: Type.Optional(Amount), currency: Type.Optional(CodeText('Asset code.')), network: Type.Optional(CodeText('Network code.')) },
          { additionalProperties: false },
        ),
        response: { 200: PaymentIntent, ...errorResponses(400, 404, 422, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) => {
      checkPaymentIntentId(request.params.id, 'id');
      const tenant = tenantOf(request.caller!);
      // Without a key, completed_at is the anchor (a completing call is safe to repeat); a key also guards a partial deposit.
      if (readIdempotencyKey(request) === null) {
        return presentIntent(await simulator.simulateIntentDeposit(tenant, request.params.id, request.body), clock.now());
      }
      const once = idempotency.once(request, reply, (view: IntentView) => ({ status: 200, body: presentIntent(view, clock.now()) }));
      return idempotency.send(reply, await simulator.simulateIntentDepositOnce(tenant, request.params.id, request.body, once));
    },
  );

  app.post(
    '/test/addresses/:id/simulate-deposit',
    {
      config: { scope: 'addresses:write', fundMoving: true, sandboxOnly: true, errors: ['resource_not_found', 'price_unavailable'] },
      schema: {
        summary: 'Simulate a deposit to a standalone address',
        description: 'Sandbox only (404 for live keys): credits `amount` to a standalone address, as a chain deposit would, with its ledger row and events.',
        tags,
        params: Type.Object({ id: PathId }),
        body: Type.Object({ amount: Amount }, { additionalProperties: false }),
        response: { 200: Address, ...errorResponses(400, 404, 422, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      checkId(request.params.id, 'address');
      return presentAddress(await simulator.simulateAddressDeposit(tenantOf(request.caller!), request.params.id, request.body));
    },
  );

  app.post(
    '/test/payouts/:id/simulate',
    {
      config: { scope: 'payouts:write', fundMoving: true, sandboxOnly: true, errors: ['resource_not_found', 'invalid_state'] },
      schema: {
        summary: 'Drive a sandbox payout to an outcome',
        description:
          'completed settles the payout (funds leave, fee collected); failed returns the reserved funds. A move backward or out ' +
          'of a final state changes nothing and answers 409 invalid_state with the payout as it is. No Idempotency-Key needed.',
        tags,
        params: Type.Object({ id: PathId }),
        body: Type.Object({ outcome: Type.Union([Type.Literal('completed'), Type.Literal('failed')]) }, { additionalProperties: false }),
        response: {
          200: Payout,
          409: Type.Object({ error: ErrorEnvelopeSchema.properties.error, payout: Payout }, { description: 'invalid_state, with the payout as it is.' }),
          ...errorResponses(400, 404, 422, ...PARTNER_ERRORS),
        },
      },
    },
    async (request, reply) => {
      try {
        return presentPayout(await sandboxPayouts.simulate(tenantOf(request.caller!), request.params.id, request.body.outcome), `${config.publicUrl}${partnerPrefix}`);
      } catch (error) {
        if (!(error instanceof PayoutStateConflict)) throw error;
        // The error envelope, with the payout as it is beside it.
        return reply.code(409).send({
          ...errorEnvelope(config.docsBaseUrl, error.code, error.message, error.param),
          payout: presentPayout(error.payout, `${config.publicUrl}${partnerPrefix}`),
        });
      }
    },
  );

  app.post(
    '/test/refunds/:id/simulate',
    {
      config: { scope: 'payouts:write', fundMoving: true, sandboxOnly: true, errors: ['resource_not_found', 'invalid_state'] },
      schema: {
        summary: 'Drive a sandbox refund to an outcome',
        description:
          'completed settles the refund (funds leave, fee collected); failed returns the reserved funds, and the amount becomes ' +
          'refundable again. A move backward or out of a final state changes nothing and answers 409 invalid_state with the refund ' +
          'as it is. No Idempotency-Key needed.',
        tags,
        params: Type.Object({ id: PathId }),
        body: Type.Object({ outcome: Type.Union([Type.Literal('completed'), Type.Literal('failed')]) }, { additionalProperties: false }),
        response: {
          200: Refund,
          409: Type.Object({ error: ErrorEnvelopeSchema.properties.error, refund: Refund }, { description: 'invalid_state, with the refund as it is.' }),
          ...errorResponses(400, 404, 422, ...PARTNER_ERRORS),
        },
      },
    },
    async (request, reply) => {
      try {
        return presentRefund(await refunds.simulate(tenantOf(request.caller!), request.params.id, request.body.outcome));
      } catch (error) {
        if (!(error instanceof PayoutStateConflict)) throw error;
        return reply.code(409).send({
          ...errorEnvelope(config.docsBaseUrl, error.code, error.message, error.param),
          refund: presentRefund(error.payout),
        });
      }
    },
  );
}
