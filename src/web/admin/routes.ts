import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyMode } from '../../domain/api-keys.js';
import { DomainError, notFound } from '../../domain/errors.js';
import { ORGANIZATION_STATUSES, type OrganizationStatus } from '../../domain/organizations.js';
import { TooManyFailures, type AuthFailureLimiter } from '../../http/auth-failures.js';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { ERROR_HTTP } from '../../http/error-codes.js';
import { reportRequest, sendReport } from '../../http/resources/report.js';
import { dailyDepositVolume, isSignedOut, recordSignOut } from '../../use-cases/dashboard.js';
import { LIVE_PAYOUT_LIST } from '../../use-cases/operator-payouts.js';
import { html } from '../html.js';
import { pageHeaders, type StaticAssets } from '../static-assets.js';
import { keyCreatedPage, listPage, LISTS, organizationPage } from './organization-pages.js';
import { openPayoutsPage, payoutPage, payoutUrl } from './payout-pages.js';
import { reconciliationPage } from './reconciliation-page.js';
import { treasuryPage } from './treasury-page.js';
import { DASHBOARD, dashboardPage, modeName, signInPage, table, time, type PageContext } from './pages.js';
import { cookieValue, SESSION_COOKIE, sessionCookie, type DashboardSessions, type Session } from './sessions.js';
import { searchRoutes } from './search-routes.js';
import { chartDays, CHART_DAYS, volumeCharts } from './volume-chart.js';
import { acceptForms } from '../forms.js';

type Form = Record<string, string>;
type Query = { cursor?: string; limit?: string; mode?: string };

const MODES: readonly KeyMode[] = ['test', 'live'];
const modeOf = (value: unknown): KeyMode => {
  if (!MODES.includes(value as KeyMode)) throw notFound('mode');
  return value as KeyMode;
};

/**
 * The operator dashboard: server-rendered pages over the operator's use cases (the same ones as /admin/v1 and
 * the CLI). Signed in with the operator token; the session is a signed HttpOnly SameSite=Strict cookie, and
 * every form carries the session's CSRF token, checked before any change.
 */
/** Room for the sign-in form's token field (and a browser's extras), URL-encoded. */
const SIGN_IN_FORM_BYTES = 1024;

export function dashboardRoutes(app: App, ctx: AppContext, sessions: DashboardSessions, failures: AuthFailureLimiter, assets: StaticAssets): void {
  const { operator, operatorPayouts, webhooks, cursors, db, clock, config } = ctx;
  const stylesheet = assets.url('admin.css');
  const sessionOf = new WeakMap<FastifyRequest, Session>();
  const secure = (request: FastifyRequest) => request.protocol === 'https' || config.publicUrl.startsWith('https:');
  const send = (reply: FastifyReply, markup: { value: string }, status = 200) => reply.code(status).headers(pageHeaders()).send(markup.value);
  const pageContext = (request: FastifyRequest): PageContext => ({ stylesheet, csrf: sessions.csrfToken(sessionOf.get(request)!), now: clock.now() });

  // Forms post URL-encoded bodies; only the dashboard accepts them.
  acceptForms(app, 16 * 1024);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // The framework's own refusals (a body of another type, too large, unparsable, or abandoned by its client)
    // carry a 4xx status: the browser's to fix, not the server's failure, so not logged as an error.
    const status = error instanceof DomainError ? ERROR_HTTP[error.code].status : (error.statusCode ?? 500);
    const known = error instanceof DomainError || status < 500;
    if (!known) request.log.error({ err: error }, 'dashboard request failed');
    else if (!(error instanceof DomainError)) request.log.info({ err: error }, 'dashboard request refused');
    if (error instanceof TooManyFailures) reply.header('retry-after', error.retryAfterSeconds);
    const message = known ? error.message : 'Something went wrong on our side.';
    if (!sessionOf.has(request)) return send(reply, signInPage(stylesheet, message), status);
    return send(reply, dashboardPage(pageContext(request), `Error ${status}`, html`<p class="problem" role="alert">${message}</p>`), status);
  });

  app.get(DASHBOARD, async (_request, reply) => reply.redirect(`${DASHBOARD}/overview`, 303));

  app.get(`${DASHBOARD}/sign-in`, async (_request, reply) => send(reply, signInPage(stylesheet, null)));

  // The token is in the body. A locked-out address may still sign in with the right token, in a body of a
  // sign-in form's size; anything larger (or of unstated length) it sends is refused before being read.
  // Failures elsewhere (the operator API) do not count here.
  const signInGate = async (request: FastifyRequest) => {
    if (!(Number(request.headers['content-length']) <= SIGN_IN_FORM_BYTES)) await failures.check(request);
  };
  app.post<{ Body: Form }>(`${DASHBOARD}/sign-in`, { onRequest: signInGate }, async (request, reply) => {
    if (!sessions.isOperatorToken(String(request.body?.token ?? ''))) {
      await failures.check(request);
      await failures.record(request);
      return send(reply, signInPage(stylesheet, 'That is not the operator token.'), 401);
    }
    reply.header('set-cookie', sessionCookie(sessions.open(new Date()), secure(request)));
    return reply.redirect(`${DASHBOARD}/overview`, 303);
  });

  app.register(async (signedIn: App) => {
    signedIn.addHook('onRequest', async (request, reply) => {
      const session = sessions.verify(cookieValue(request.headers.cookie, SESSION_COOKIE), new Date());
      if (!session || (await isSignedOut(db, session.id))) return reply.redirect(`${DASHBOARD}/sign-in`, 303);
      sessionOf.set(request, session);
    });
    signedIn.addHook('preHandler', async (request) => {
      if (request.method === 'POST' && !sessions.isCsrfToken(sessionOf.get(request)!, (request.body as Form | undefined)?._csrf)) {
        throw new DomainError('forbidden_scope', 'This form is stale or did not come from the dashboard; reload the page and try again.');
      }
    });

    signedIn.post(`${DASHBOARD}/sign-out`, async (request, reply) => {
      await recordSignOut(db, sessionOf.get(request)!, new Date());
      reply.header('set-cookie', sessionCookie('', secure(request), 0));
      return reply.redirect(`${DASHBOARD}/sign-in`, 303);
    });

    searchRoutes(signedIn, ctx, { pageContext, send });

    signedIn.get<{ Querystring: Query }>(`${DASHBOARD}/overview`, async (request, reply) => {
      const days = chartDays(clock.now());
      const from = new Date(`${days[0]}T00:00:00Z`);
      // Unless the operator chose, the mode that has data: live when it has any, sandbox otherwise.
      const chosen = request.query.mode === undefined ? null : modeOf(request.query.mode);
      const live = chosen === 'test' ? [] : await dailyDepositVolume(db, 'live', from);
      const mode = chosen ?? (live.length > 0 ? 'live' : 'test');
      const rows = mode === 'live' ? live : await dailyDepositVolume(db, 'test', from);
      const other = mode === 'live' ? 'test' : 'live';
      return send(
        reply,
        dashboardPage(
          pageContext(request),
          'Overview',
          html`<h2>Daily deposit volume per asset, last ${CHART_DAYS} days (${modeName(mode)})</h2>
<p><a href="?mode=${other}">Show ${modeName(other)}</a></p>
${volumeCharts(rows, days)}`,
        ),
      );
    });

    signedIn.get<{ Querystring: Query }>(`${DASHBOARD}/organizations`, async (request, reply) => {
      const list = 'organizations';
      const page = await operator.listOrganizations(cursors.pageRequest(list, request.query));
      const next = cursors.envelope(list, page, (row) => row).cursor;
      return send(
        reply,
        dashboardPage(
          pageContext(request),
          'Organizations',
          table(
            'Organizations',
            [
              { label: 'Name', cell: (o) => html`<a href="${DASHBOARD}/organizations/${o.id}">${o.name}</a>` },
              { label: 'Status', cell: (o) => o.status },
              { label: 'Id', cell: (o) => html`<code>${o.id}</code>` },
              { label: 'Created', cell: (o) => time(o.created_at) },
            ],
            page.rows,
            next && `?cursor=${encodeURIComponent(next)}`,
            false,
          ),
        ),
      );
    });

    signedIn.get<{ Params: { id: string }; Querystring: Query }>(`${DASHBOARD}/organizations/:id`, async (request, reply) => {
      const organization = await operator.getOrganization(request.params.id);
      const keyList = `keys:${organization.id}`;
      const keys = await operator.listApiKeys(organization.id, cursors.pageRequest(keyList, request.query));
      const tenants = MODES.map((mode) => ({ organizationId: organization.id, mode }));
      const balances = await Promise.all(tenants.map((tenant) => ctx.balances.ofTenant(db, tenant)));
      const nextKeys = cursors.envelope(keyList, keys, (row) => row).cursor;
      return send(reply, organizationPage(pageContext(request), organization, keys.rows, nextKeys, balances));
    });

    // The partner's statement, downloaded by the operator: the same stream as GET /reports/transactions.
    signedIn.get<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(`${DASHBOARD}/organizations/:id/statement`, async (request, reply) => {
      const organization = await operator.getOrganization(request.params.id);
      const { mode, from, to, external_ref: externalRef, format } = request.query;
      if (from === undefined || to === undefined) throw new DomainError('invalid_request', 'A statement needs from and to.', from === undefined ? 'from' : 'to');
      const query = { from, to, ...(externalRef ? { external_ref: externalRef } : {}), format: format === 'json' ? ('json' as const) : ('csv' as const) };
      const tenant = { organizationId: organization.id, mode: modeOf(mode) };
      const asked = reportRequest(query, undefined);
      return sendReport(reply, await ctx.reports.open(db, tenant, asked), asked.format);
    });

    signedIn.get<{ Params: { id: string; mode: string; list: string }; Querystring: Query }>(
      `${DASHBOARD}/organizations/:id/:mode/:list`,
      async (request, reply) => {
        const list = Object.hasOwn(LISTS, request.params.list) ? LISTS[request.params.list]! : null;
        if (!list) throw notFound('list');
        const organization = await operator.getOrganization(request.params.id);
        const mode = modeOf(request.params.mode);
        const view = pageContext(request);
        return send(reply, listPage(view, organization, mode, list, await list.show(ctx, view, organization, mode, request.query)));
      },
    );

    signedIn.get(`${DASHBOARD}/treasury`, async (request, reply) => send(reply, treasuryPage(pageContext(request), await ctx.treasury.status())));

    signedIn.get(`${DASHBOARD}/reconciliation`, async (request, reply) => send(reply, reconciliationPage(pageContext(request), await ctx.reconciliation.latest())));

    signedIn.get<{ Querystring: Query }>(`${DASHBOARD}/payouts`, async (request, reply) => {
      const page = await operatorPayouts.list({}, cursors.pageRequest(LIVE_PAYOUT_LIST, request.query));
      return send(reply, openPayoutsPage(pageContext(request), page.rows, cursors.envelope(LIVE_PAYOUT_LIST, page, (row) => row).cursor));
    });

    signedIn.get<{ Params: { id: string } }>(`${DASHBOARD}/payouts/:id`, async (request, reply) =>
      send(reply, payoutPage(pageContext(request), await operatorPayouts.get(request.params.id))),
    );

    // The operator API's cancel: recorded now, carried out by the payout engine at the payout's next attempt.
    signedIn.post<{ Params: { id: string } }>(`${DASHBOARD}/payouts/:id/cancel`, async (request, reply) => {
      await operatorPayouts.cancel(request.params.id);
      return reply.redirect(payoutUrl(request.params.id), 303);
    });

    signedIn.post<{ Params: { id: string }; Body: Form }>(`${DASHBOARD}/organizations/:id/status`, async (request, reply) => {
      const status = request.body.status as OrganizationStatus;
      if (!ORGANIZATION_STATUSES.includes(status)) throw new DomainError('invalid_request', 'Unknown organization status.', 'status');
      await operator.updateOrganization(request.params.id, { status });
      return reply.redirect(`${DASHBOARD}/organizations/${request.params.id}`, 303);
    });

    signedIn.post<{ Params: { id: string } }>(`${DASHBOARD}/keys/:id/rotate`, async (request, reply) =>
      send(reply, keyCreatedPage(pageContext(request), await operator.rotateApiKey(request.params.id))),
    );

    signedIn.post<{ Params: { id: string } }>(`${DASHBOARD}/keys/:id/revoke`, async (request, reply) => {
      const key = await operator.revokeApiKey(request.params.id);
      return reply.redirect(`${DASHBOARD}/organizations/${key.organization_id}`, 303);
    });

    // The partner's replay (POST /events/{id}/replay) on the operator's behalf: one fresh delivery of the event.
    signedIn.post<{ Params: { id: string; mode: string; event: string } }>(
      `${DASHBOARD}/organizations/:id/:mode/events/:event/replay`,
      async (request, reply) => {
        const organization = await operator.getOrganization(request.params.id);
        const tenant = { organizationId: organization.id, mode: modeOf(request.params.mode) };
        await webhooks.replayForOperator(tenant, request.params.event);
        return reply.redirect(`${DASHBOARD}/organizations/${organization.id}/${tenant.mode}/deliveries`, 303);
      },
    );
  });
}
