import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { LOG_REDACTIONS, requestLogFields, URL_FREE_SERIALIZERS } from '../logging.js';
import { installRequestMetrics } from '../metrics/http.js';
import { addressRoutes } from '../routes/addresses.js';
import { balanceRoutes } from '../routes/balances.js';
import { reportRoutes } from '../routes/reports.js';
import { adminAuthLockoutRoutes } from '../routes/admin/auth-lockouts.js';
import { adminDepositRoutes } from '../routes/admin/deposits.js';
import { adminSolanaRoutes } from '../routes/admin/solana.js';
import { adminTreasuryRoutes } from '../routes/admin/treasury.js';
import { adminXpubRoutes } from '../routes/admin/xpubs.js';
import { adminKeyRoutes } from '../routes/admin/keys.js';
import { adminIdentifierRoutes } from '../routes/admin/identifiers.js';
import { adminLedgerRoutes } from '../routes/admin/ledger.js';
import { adminReportRoutes } from '../routes/admin/reports.js';
import { adminMetricsRoutes } from '../routes/admin/metrics.js';
import { adminOrganizationRoutes } from '../routes/admin/organizations.js';
import { adminPayoutRoutes } from '../routes/admin/payouts.js';
import { adminReconciliationRoutes } from '../routes/admin/reconciliation.js';
import { adminWebhookRoutes } from '../routes/admin/webhooks.js';
import { capabilitiesRoutes } from '../routes/capabilities.js';
import { eventRoutes } from '../routes/events.js';
import { healthRoutes } from '../routes/health.js';
import { paymentIntentRoutes } from '../routes/payment-intents.js';
import { probeRoutes, type WorkerStatus } from '../routes/probes.js';
import { payoutRoutes } from '../routes/payouts.js';
import { refundRoutes } from '../routes/refunds.js';
import { refundAddressRequestRoutes } from '../routes/refund-address-requests.js';
import { sandboxRoutes } from '../routes/sandbox.js';
import { transactionRoutes } from '../routes/transactions.js';
import { unavailableRoutes } from '../routes/unavailable.js';
import { webRoutes } from '../web/index.js';
import { adminAuthentication, partnerAuthentication } from './authenticate.js';
import { answerWhileClosing } from './closing.js';
import type { App } from './route-config.js';
import type { AppContext } from '../context.js';
import { BODY_LIMIT_BYTES, installErrorHandling, type UnknownPage } from './error-handler.js';
import { docsPage } from './docs-page.js';
import { installJsonBodyParser } from './json-body.js';
import { adminOpenApi, partnerOpenApi } from './openapi.js';
import { refuseUnstorableStrings } from './request-guards.js';
import { refuseUnknownQueryParameters } from './strict-query.js';
import './route-config.js';
import { ErrorEnvelopeSchema, MAX_PATH_PARAM } from './schemas.js';
import { cachedSerializers, type SerializerCache } from './serializers.js';
import { clientErrorHandler, frameworkErrors, installBodyDrain } from './transport-errors.js';

export const PARTNER_PREFIX = '/connect/v1';

export const ADMIN_PREFIX = '/admin/v1';
const CLIENT_REQUEST_ID = /^[\w.:-]{1,128}$/;
/**
 * Request ids: a random per-process prefix and a counter, 26 characters of [0-9A-Z]. Unique across
 * instances without drawing randomness per request, which costs more than it should on a hot path.
 */
const REQUEST_ID_PREFIX = BigInt(`0x${randomBytes(9).toString('hex')}`).toString(36).toUpperCase().padStart(14, '0').slice(-14);
let requestCounter = 0;
const nextRequestId = () => `req_${REQUEST_ID_PREFIX}${(++requestCounter).toString(36).toUpperCase().padStart(12, '0')}`;

export interface BuildOptions {
  adminToken: string;
  /** Pino logger options; `false` silences (tests). */
  logger?: boolean | Record<string, unknown>;
  /** What GET /readyz reports of the background work; `off` (not this process's job) when not given. */
  workers?: WorkerStatus;
  /** Only the operator API and the probes: what the CLI serves itself when no server holds the embedded database. */
  operatorOnly?: boolean;
  /** Response serializers already compiled by another app of this process (serializers.ts); each app compiles its own when not given. */
  serializers?: SerializerCache;
}

/** Above the keep-alive timeout (72 s) and any answer this API takes to compute. */
const IDLE_CONNECTION_TIMEOUT_MS = 120_000;

export async function buildApp(ctx: AppContext, options: BuildOptions): Promise<App> {
  const { docsBaseUrl } = ctx.config;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: ctx.config.logLevel,
            // Fastify logs no headers by default; these paths stay masked should a serializer ever add them.
            redact: LOG_REDACTIONS,
            serializers: { req: requestLogFields, ...URL_FREE_SERIALIZERS },
            ...(typeof options.logger === 'object' ? options.logger : {}),
          },
    bodyLimit: BODY_LIMIT_BYTES,
    // A client that dribbles its headers or body is cut off: it cannot hold a connection (and its memory) for ever.
    // Checked every second. Kept-alive connections stay Fastify's 72 s, above common load balancers' 60 s idle.
    requestTimeout: ctx.config.requestTimeoutMs,
    http: { headersTimeout: ctx.config.requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, ctx.config.requestTimeoutMs) },
    // A connection on which nothing at all moves for two minutes (no request, no byte of an answer) is closed.
    connectionTimeout: IDLE_CONNECTION_TIMEOUT_MS,
    trustProxy: ctx.config.trustProxy,
    // Request ids are always the server's own: a client cannot make its lines look like another request's.
    requestIdHeader: false,
    genReqId: nextRequestId,
    // A client's X-Request-Id is kept in a field of its own on every log line of the request.
    childLoggerFactory: (logger, bindings, childOptions, raw) => {
      const given = raw.headers['x-request-id'];
      const clientRequestId = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : undefined;
      return logger.child(clientRequestId ? { ...bindings, clientRequestId } : bindings, childOptions);
    },
    clientErrorHandler: clientErrorHandler(docsBaseUrl),
    frameworkErrors: frameworkErrors(docsBaseUrl),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM },
    // Requests that arrive while closing are answered by answerWhileClosing, in the error envelope.
    return503OnClosing: false,
    ...(options.serializers ? { schemaController: { compilersFactory: { buildSerializer: cachedSerializers(options.serializers) } } } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  installRequestMetrics(app, ctx.metrics);
  installJsonBodyParser(app);
  // The API speaks JSON only: other bodies are answered 415 instead of reaching validation as strings.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('caller', null);
  // Callback hooks on every request: an async one costs a promise and a microtask each.
  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  answerWhileClosing(app, docsBaseUrl);
  app.addHook('preValidation', refuseUnstorableStrings);
  let unknownPage: UnknownPage | null = null;
  installErrorHandling(app, docsBaseUrl, ctx.metrics, `${PARTNER_PREFIX}/test/`, () => unknownPage);
  installBodyDrain(app);
  app.addSchema(ErrorEnvelopeSchema);
  probeRoutes(app, ctx, options.workers ?? (() => 'off'));

  // Each API gets its own OpenAPI document: swagger registered in a context sees that context's routes only.
  await app.register(async (docs: App) => {
    await docs.register(swagger, adminOpenApi());
    docs.get(`${ADMIN_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => docs.swagger());
    await docs.register(
      async (admin: App) => {
        admin.addHook('onRequest', adminAuthentication(options.adminToken, ctx.lockouts.operator));
        adminOrganizationRoutes(admin, ctx);
        adminKeyRoutes(admin, ctx);
        adminWebhookRoutes(admin, ctx);
        adminMetricsRoutes(admin, ctx);
        adminLedgerRoutes(admin, ctx);
        adminIdentifierRoutes(admin, ctx);
        adminReportRoutes(admin, ctx);
        adminDepositRoutes(admin, ctx);
        adminSolanaRoutes(admin, ctx);
        adminXpubRoutes(admin, ctx);
        adminPayoutRoutes(admin, ctx, PARTNER_PREFIX);
        adminReconciliationRoutes(admin, ctx);
        adminTreasuryRoutes(admin, ctx);
        adminAuthLockoutRoutes(admin, ctx);
      },
      { prefix: ADMIN_PREFIX },
    );
  });
  // A CLI verb needs none of the rest, whose schemas take about 0.3 s of CPU to compile, a sixth of its run.
  if (options.operatorOnly) return app;

  await app.register(async (docs: App) => {
    await docs.register(swagger, partnerOpenApi());
    await docs.register(swaggerUi, docsPage(`${PARTNER_PREFIX}/docs`));
    docs.get(`${PARTNER_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => docs.swagger());
    await docs.register(
      async (partner: App) => {
        partner.addHook('onRequest', partnerAuthentication(ctx.callers, ctx.limiter, ctx.lockouts.partner, ctx.clock));
        partner.addHook('preValidation', refuseUnknownQueryParameters);
        healthRoutes(partner, ctx);
        capabilitiesRoutes(partner, ctx);
        paymentIntentRoutes(partner, ctx);
        addressRoutes(partner, ctx);
        transactionRoutes(partner, ctx);
        balanceRoutes(partner, ctx);
        reportRoutes(partner, ctx);
        payoutRoutes(partner, ctx, PARTNER_PREFIX);
        refundRoutes(partner, ctx);
        refundAddressRequestRoutes(partner, ctx);
        eventRoutes(partner, ctx);
        sandboxRoutes(partner, ctx, PARTNER_PREFIX);
        unavailableRoutes(partner);
      },
      { prefix: PARTNER_PREFIX },
    );
  });

  await app.register(async (web: App) => {
    unknownPage = await webRoutes(web, ctx, options.adminToken);
  });

  return app;
}
