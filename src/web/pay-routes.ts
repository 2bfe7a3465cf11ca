import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, notFound } from '../domain/errors.js';
import { isRefCode } from '../domain/payment-intents.js';
import { REFUND_LINK_PATH } from '../domain/refund-address-requests.js';
import { addressGroup } from '../http/client-address.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { enforce } from '../http/rate-limit.js';
import type { PageLookup, PaymentPages } from '../use-cases/payment-pages.js';
import { chooseLanguage } from './i18n.js';
import { notFoundPage, payPage, tooManyRequestsPage } from './pay-page.js';
import { qrSvg } from './qr.js';
import { pageHeaders, type StaticAssets } from './static-assets.js';

export const PAY_PREFIX = '/pay';
const statusUrl = (id: string) => `${PAY_PREFIX}/i/${id}/status`;
const simulateUrl = (id: string) => `${PAY_PREFIX}/i/${id}/simulate`;

type PageQuery = { Querystring: { lang?: string; asset?: string; network?: string } };

/** The budget every client shares: lookups by a ref_code that find nothing (see the route). */
const ALL_MISSES = 'page-misses';

/**
 * The hosted payment page, public: `/pay/{ref_code}` for people, `/pay/i/{payment_intent_id}` for embedding
 * (that one may be framed by any site; the ref_code page by none), its status for the page's script, and the
 * sandbox-only "simulate payment" button. Every request counts against its client address (an IPv6 one by its
 * /64); lookups by ref_code that find nothing also count against one ceiling for all clients.
 */
export function payRoutes(app: App, { limiter, clock, config }: AppContext, pages: PaymentPages, assets: StaticAssets): void {
  const stylesheet = assets.url('pay.css');
  const pageRoutes = new Set([`${PAY_PREFIX}/:ref_code`, `${PAY_PREFIX}/i/:id`]);
  // Every route of the refund link is a page (src/web/refund-link-routes.ts).
  const isPage = (route: string) => pageRoutes.has(route) || route.startsWith(`${REFUND_LINK_PATH}/`);
  /** A person refused a page gets a page. */
  const refusePage = (request: FastifyRequest<PageQuery>, reply: FastifyReply, retryAfter: string) => {
    const lang = chooseLanguage(request.query.lang, request.headers['accept-language']);
    reply.code(429).headers({ ...pageHeaders(), 'content-language': lang, vary: 'accept-language', 'retry-after': retryAfter });
    return reply.send(tooManyRequestsPage(lang, stylesheet, retryAfter).value);
  };
  app.addHook('onRequest', async (request: FastifyRequest<PageQuery>, reply) => {
    try {
      enforce(reply, await limiter.consume(`page:${addressGroup(request.ip)}`, config.pagesRequestsPerSecond), 'this address');
    } catch (error) {
      // The page's own script (status, simulate) keeps the JSON error.
      if (!(error instanceof DomainError && error.code === 'rate_limited') || !isPage(request.routeOptions.url ?? '')) throw error;
      return refusePage(request, reply, String(reply.getHeader('ratelimit-reset') ?? 1));
    }
  });

  /** `found` runs when the lookup finds its intent, before the page is drawn. */
  const page = async (
    request: FastifyRequest<PageQuery>,
    reply: FastifyReply,
    lookup: PageLookup,
    framing: "'none'" | '*',
    found: () => Promise<void> = async () => {},
  ) => {
    const lang = chooseLanguage(request.query.lang, request.headers['accept-language']);
    reply.headers({ ...pageHeaders(framing), 'content-language': lang, vary: 'accept-language' });
    const view = await pages.view(lookup, { asset: request.query.asset, network: request.query.network });
    if (!view) return reply.code(404).send(notFoundPage(lang, stylesheet).value);
    await found();
    return payPage({
      view,
      lang,
      qrCode: view.card && (await qrSvg(view.card.qrText)),
      statusUrl: statusUrl(view.id),
      simulateUrl: simulateUrl(view.id),
      now: clock.now(),
      assets: { stylesheet, script: assets.url('pay.js') },
    }).value;
  };

  /**
   * A ref_code is short (31^5 codes, shared by every tenant), so many addresses together could walk the space
   * however low each one's budget. A lookup of a code that could exist draws on two budgets of misses: its
   * address's, then (only if that allowed it, so a refused address spends nothing of it) the one every client
   * and instance shares. Each point is spent before the lookup, so concurrent guesses cannot overrun a budget,
   * and given back when the code finds its intent: payers never spend them, guesses that miss do. Per minute,
   * so that the points lookups in flight hold for an instant are few beside the budget. A spent budget refuses
   * every such lookup, found or not, until its window ends: a refusal tells nothing about the code. A
   * malformed code is looked up nowhere and counts only against its address's budget of requests.
   */
  app.get<{ Params: { ref_code: string } } & PageQuery>(`${PAY_PREFIX}/:ref_code`, { schema: { hide: true } }, async (request, reply) => {
    const refCode = request.params.ref_code;
    if (!isRefCode(refCode)) return page(request, reply, { refCode }, "'none'");
    const budgets = [
      { key: `page-misses:${addressGroup(request.ip)}`, budget: { points: config.pagesMissesPerMinutePerAddress, seconds: 60 } },
      { key: ALL_MISSES, budget: { points: config.pagesMissesPerMinute, seconds: 60 } },
    ];
    for (const { key, budget } of budgets) {
      const spent = await limiter.spend(key, budget);
      if (!spent.allowed) return refusePage(request, reply, String(spent.resetSeconds));
    }
    const giveBack = async () => {
      await Promise.all(budgets.map(({ key, budget }) => limiter.giveBack(key, budget)));
    };
    return page(request, reply, { refCode }, "'none'", giveBack);
  });
  app.get<{ Params: { id: string } } & PageQuery>(`${PAY_PREFIX}/i/:id`, { schema: { hide: true } }, (request, reply) =>
    page(request, reply, { id: request.params.id }, '*'),
  );

  app.get<{ Params: { id: string } }>(`${PAY_PREFIX}/i/:id/status`, { schema: { hide: true } }, async (request, reply) => {
    const status = await pages.status({ id: request.params.id });
    if (!status) throw notFound('payment intent');
    return reply.header('cache-control', 'no-store').send(status);
  });

  app.post<{ Params: { id: string } }>(`${PAY_PREFIX}/i/:id/simulate`, { schema: { hide: true } }, async (request) =>
    pages.simulate(request.params.id),
  );
}
