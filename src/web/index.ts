import type { AuthFailureLimiter } from '../http/auth-failures.js';
import type { App, AppContext } from '../http/context.js';
import { dashboardRoutes } from './admin/routes.js';
import { DashboardSessions } from './admin/sessions.js';
import { PaymentPages } from '../use-cases/payment-pages.js';
import { payRoutes } from './pay-routes.js';
import { StaticAssets } from './static-assets.js';

/**
 * The server-rendered pages: the hosted payment page and the operator dashboard, with their own scripts and
 * styles. Registered beside the APIs, outside both OpenAPI documents: they are pages, not API operations.
 */
export async function webRoutes(app: App, ctx: AppContext, operatorToken: string, failures: AuthFailureLimiter): Promise<void> {
  const assets = new StaticAssets();
  assets.register(app);
  await app.register(async (dashboard: App) => dashboardRoutes(dashboard, ctx, new DashboardSessions(operatorToken), failures, assets));
  await app.register(async (pay: App) => payRoutes(pay, ctx, new PaymentPages(ctx.db, ctx.catalog, ctx.clock, ctx.simulator, ctx.prices, ctx.config.pricesMaxAgeSeconds), assets));
}
