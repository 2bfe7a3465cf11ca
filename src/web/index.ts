import type { UnknownPage } from '../http/error-handler.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { DASHBOARD, pageNotFoundPage } from './admin/pages.js';
import { dashboardRoutes } from './admin/routes.js';
import { DashboardSessions } from './admin/sessions.js';
import { PaymentPages } from '../use-cases/payment-pages.js';
import { chooseLanguage } from './i18n.js';
import { notFoundPage } from './pay-page.js';
import { PAY_PREFIX, payRoutes } from './pay-routes.js';
import { refundLinkRoutes } from './refund-link-routes.js';
import { pageHeaders, StaticAssets } from './static-assets.js';

/**
 * The server-rendered pages: the hosted payment page and the operator dashboard, with their own scripts and
 * styles. Registered beside the APIs, outside both OpenAPI documents: they are pages, not API operations.
 */
export async function webRoutes(app: App, ctx: AppContext, operatorToken: string): Promise<UnknownPage> {
  const assets = new StaticAssets();
  assets.register(app);
  await app.register(async (dashboard: App) => dashboardRoutes(dashboard, ctx, new DashboardSessions(operatorToken), ctx.lockouts.dashboard, assets));
  await app.register(async (pay: App) => {
    payRoutes(pay, ctx, new PaymentPages(ctx.db, ctx.catalog, ctx.clock, ctx.simulator, ctx.prices, ctx.config.pricesMaxAgeSeconds), assets);
    // A child of the payment page's plugin: its rate limit applies; only these routes take form bodies.
    await pay.register(async (refund: App) => refundLinkRoutes(refund, ctx, assets));
  });
  return unknownPage(assets);
}

function unknownPage(assets: StaticAssets): UnknownPage {
  const underPrefix = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  return (request) => {
    const path = request.url.split('?')[0]!;
    if (underPrefix(path, DASHBOARD)) return { headers: pageHeaders(), body: pageNotFoundPage(assets.url('admin.css')).value };
    if (!underPrefix(path, PAY_PREFIX)) return null;
    const lang = chooseLanguage((request.query as { lang?: unknown } | undefined)?.lang, request.headers['accept-language']);
    return { headers: { ...pageHeaders(), 'content-language': lang, vary: 'accept-language' }, body: notFoundPage(lang, assets.url('pay.css')).value };
  };
}
