import type { KeyMode } from '../../domain/api-keys.js';
import { ORGANIZATION_STATUSES } from '../../domain/organizations.js';
import type { AppContext } from '../../context.js';
import { effectiveStatus } from '../../domain/payment-intents.js';
import type { Page, PageRequest } from '../../domain/page-size.js';
import type { Tenant } from '../../domain/tenancy.js';
import type { BalanceView } from '../../use-cases/balances.js';
import type { EventSummary } from '../../use-cases/events.js';
import type { ApiKeyRow, CreatedApiKey, OrganizationRow } from '../../use-cases/operator.js';
import type { TransactionRow } from '../../use-cases/transactions.js';
import type { DeliveryRow } from '../../use-cases/webhooks.js';
import type { IntentView } from '../../use-cases/payment-intents.js';
import { html, type Fragment, type SafeHtml } from '../html.js';
import { objectLink } from './object-pages.js';
import { actionButton, DASHBOARD, dashboardPage, identifier, modeName, table, time, type Column, type PageContext } from './pages.js';

const orgUrl = (organization: OrganizationRow) => `${DASHBOARD}/organizations/${organization.id}`;

function keyColumns(ctx: PageContext): Column<ApiKeyRow>[] {
  return [
    { label: 'Prefix', cell: (k) => html`<code>${k.key_prefix}…</code>` },
    { label: 'Mode', cell: (k) => modeName(k.mode) },
    { label: 'Rate limit', cell: (k) => `${k.rate_limit_rps}/s`, numeric: true },
    { label: 'Expires', cell: (k) => time(k.expires_at) },
    { label: 'Revoked', cell: (k) => time(k.revoked_at) },
    { label: 'Created', cell: (k) => time(k.created_at) },
    {
      label: 'Actions',
      cell: (k) => (k.revoked_at ? '—' : [actionButton(ctx, `${DASHBOARD}/keys/${k.id}/rotate`, 'Rotate'), actionButton(ctx, `${DASHBOARD}/keys/${k.id}/revoke`, 'Revoke')]),
    },
  ];
}

function balanceSection(mode: KeyMode, view: BalanceView): SafeHtml {
  const totals = Object.entries(view.totals);
  return html`<h3>${mode === 'live' ? 'Live' : 'Sandbox'}</h3>
${table(`Balances (${modeName(mode)})`, [
  { label: 'Asset', cell: (l) => l.asset },
  { label: 'Network', cell: (l) => l.network },
  { label: 'Available', cell: (l) => l.available.toFixed(), numeric: true },
  { label: 'Reserved', cell: (l) => l.reserved.toFixed(), numeric: true },
  { label: 'USD', cell: (l) => l.valuations.usd ?? '—', numeric: true },
], view.lines, null, false)}
${totals.length ? html`<p class="totals">Totals: ${totals.map(([fiat, amount]) => html`<span class="total">${amount} ${fiat.toUpperCase()}</span> `)}</p>` : null}`;
}

/** The calendar month before `now`: what a finance team books first. */
function previousMonth(now: Date): { from: string; to: string } {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const firstOfThisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const lastOfPrevious = new Date(firstOfThisMonth.getTime() - 86_400_000);
  return { from: day(new Date(Date.UTC(lastOfPrevious.getUTCFullYear(), lastOfPrevious.getUTCMonth(), 1))), to: day(lastOfPrevious) };
}

/** A GET form: a download changes nothing, so it carries no CSRF token (docs/reports.md, Dashboard). */
function statementForm(ctx: PageContext, organization: OrganizationRow): SafeHtml {
  const month = previousMonth(ctx.now);
  return html`<form method="get" action="${orgUrl(organization)}/statement" class="inline">
  <label for="statement-mode">Mode</label>
  <select id="statement-mode" name="mode"><option value="live">${modeName('live')}</option><option value="test">${modeName('test')}</option></select>
  <label for="statement-from">From</label>
  <input type="date" id="statement-from" name="from" value="${month.from}" required>
  <label for="statement-to">To (included)</label>
  <input type="date" id="statement-to" name="to" value="${month.to}" required>
  <label for="statement-ref">External ref</label>
  <input id="statement-ref" name="external_ref" maxlength="255" placeholder="all end users">
  <label for="statement-format">Format</label>
  <select id="statement-format" name="format"><option value="csv">CSV</option><option value="json">JSON</option></select>
  <button type="submit">Download statement</button>
</form>`;
}

export function organizationPage(
  ctx: PageContext,
  organization: OrganizationRow,
  keys: ApiKeyRow[],
  nextKeys: string | null,
  balances: BalanceView[],
): SafeHtml {
  const links = (mode: KeyMode) =>
    html`<li>${modeName(mode)}: ${Object.entries(LISTS).map(([name, list]) => html`<a href="${orgUrl(organization)}/${mode}/${name}">${list.title}</a> `)}</li>`;
  return dashboardPage(
    ctx,
    organization.name,
    html`<p>Id <code>${organization.id}</code> · created ${time(organization.created_at)}</p>
<form method="post" action="${orgUrl(organization)}/status" class="inline">
  <input type="hidden" name="_csrf" value="${ctx.csrf}">
  <label for="status">Status</label>
  <select id="status" name="status">${ORGANIZATION_STATUSES.map((s) => html`<option value="${s}"${s === organization.status ? html` selected` : null}>${s}</option>`)}</select>
  <button type="submit">Change status</button>
</form>
<ul class="links">${links('test')}${links('live')}</ul>
<h2>API keys</h2>
${table('API keys', keyColumns(ctx), keys, nextKeys && `?cursor=${encodeURIComponent(nextKeys)}`, false)}
<h2>Balances</h2>
${balanceSection('test', balances[0]!)}${balanceSection('live', balances[1]!)}
<h2>Statement</h2>
<p>Every ledger movement of a date range between its opening and closing balances, valued at the prices stored when each happened (docs/reports.md).</p>
${statementForm(ctx, organization)}`,
  );
}

/** The rotated key's secret, shown this once (as the operator API's 201 does): the partner needs it. */
export function keyCreatedPage(ctx: PageContext, key: CreatedApiKey): SafeHtml {
  return dashboardPage(
    ctx,
    'Key rotated',
    html`<p>The old key stopped working. Hand this new key to the partner now: it is not shown again.</p>
<p><code class="secret">${key.key}</code></p>
<p><a href="${DASHBOARD}/organizations/${key.organization_id}">Back to the organization</a></p>`,
  );
}

interface ListPage<Row extends { id: string; created_at: Date | string }> {
  title: string;
  load(ctx: AppContext, tenant: Tenant, page: PageRequest): Promise<Page<Row>>;
  columns(page: PageContext, organization: OrganizationRow, mode: KeyMode): Column<Row>[];
  /** What the page says above its rows. */
  intro?(ctx: AppContext, tenant: Tenant): Promise<Fragment>;
}

/** A list as the dashboard shows it: one page of rows, from the API's cursor to the next one. */
interface DashboardList {
  title: string;
  show(ctx: AppContext, page: PageContext, organization: OrganizationRow, mode: KeyMode, query: { cursor?: string; limit?: string }): Promise<SafeHtml>;
}

function dashboardList<Row extends { id: string; created_at: Date | string }>(list: ListPage<Row>, name: string): DashboardList {
  return {
    title: list.title,
    async show(ctx, page, organization, mode, query) {
      // Cursors are bound to their list: one list per organization and mode.
      const cursorList = `dashboard:${name}:${organization.id}:${mode}`;
      const rows = await list.load(ctx, { organizationId: organization.id, mode }, ctx.cursors.pageRequest(cursorList, query));
      const next = ctx.cursors.envelope(cursorList, rows, (row) => row).cursor;
      const intro = await list.intro?.(ctx, { organizationId: organization.id, mode });
      // The page's heading names the list: the table is not captioned again.
      return html`${intro}${table(list.title, list.columns(page, organization, mode), rows.rows, next && `?cursor=${encodeURIComponent(next)}`, false)}`;
    },
  };
}

const intents: ListPage<IntentView> = {
  title: 'Payment intents',
  load: (ctx, tenant, page) => ctx.paymentIntents.list(ctx.db, tenant, undefined, page),
  columns: (page, _organization, mode) => [
    { label: 'Ref', cell: (i) => html`<a href="/pay/${i.ref_code}">${i.ref_code}</a>` },
    { label: 'Amount', cell: (i) => `${i.amount} ${i.currency}`, numeric: true },
    { label: 'Received', cell: (i) => i.amount_received, numeric: true },
    { label: 'Status', cell: (i) => effectiveStatus(i, page.now) },
    { label: 'External ref', cell: (i) => (i.external_ref === null ? '—' : identifier(i.external_ref)) },
    { label: 'Id', cell: (i) => objectLink('payment_intent', i.id, mode) },
    { label: 'Created', cell: (i) => time(i.created_at) },
  ],
};

const transactions: ListPage<TransactionRow> = {
  title: 'Transactions',
  load: (ctx, tenant, page) => ctx.transactions.list(ctx.db, tenant, {}, page),
  columns: (_page, _organization, mode) => [
    { label: 'Id', cell: (t) => objectLink('transaction', t.id, mode) },
    { label: 'Type', cell: (t) => t.type },
    { label: 'Status', cell: (t) => t.status },
    { label: 'Amount', cell: (t) => `${t.amount} ${t.asset}`, numeric: true },
    { label: 'Network', cell: (t) => t.network ?? '—' },
    { label: 'Tx hash', cell: (t) => (t.tx_hash ? html`<code>${t.tx_hash}</code>` : '—') },
    { label: 'Created', cell: (t) => time(t.created_at) },
  ],
};

const events: ListPage<EventSummary> = {
  title: 'Events',
  load: (ctx, tenant, page) => ctx.events.summaries(ctx.db, tenant, page),
  columns: (page, organization, mode) => [
    { label: 'Id', cell: (e) => html`<code>${e.id}</code>` },
    { label: 'Type', cell: (e) => e.type },
    { label: 'Related to', cell: (e) => (e.related_to ? objectLink(e.related_to_kind, e.related_to, mode) : '—') },
    { label: 'Created', cell: (e) => time(new Date(e.created_at)) },
    { label: 'Webhook', cell: (e) => replayButton(page, organization, mode, e.id) },
  ],
};

const deliveries: ListPage<DeliveryRow> = {
  title: 'Webhook deliveries',
  load: (ctx, tenant, page) => ctx.webhooks.deliveries(tenant.organizationId, { mode: tenant.mode }, page),
  // Deliveries go to the tenant's one endpoint of the mode, as it is now: said once, above them.
  async intro(ctx, tenant) {
    const endpoint = (await ctx.webhooks.endpoints(tenant.organizationId)).find((e) => e.mode === tenant.mode);
    if (!endpoint) return html`<p>No webhook endpoint is configured for this mode: nothing is delivered.</p>`;
    return html`<p>Endpoint: <code class="endpoint">${endpoint.url}</code>${endpoint.enabled ? null : ' (disabled: nothing is delivered)'}</p>`;
  },
  columns: (page, organization, mode) => [
    { label: 'Event', cell: (d) => html`<code>${d.event_id}</code>` },
    { label: 'Origin', cell: (d) => d.origin },
    { label: 'State', cell: (d) => d.state },
    { label: 'Attempts', cell: (d) => d.attempt_count, numeric: true },
    { label: 'Last answer', cell: (d) => d.last_http_status ?? d.last_error ?? '—' },
    { label: 'Created', cell: (d) => time(d.created_at) },
    { label: 'Replay', cell: (d) => replayButton(page, organization, mode, d.event_id) },
  ],
};

function replayButton(page: PageContext, organization: OrganizationRow, mode: KeyMode, eventId: string): Fragment {
  return actionButton(page, `${orgUrl(organization)}/${mode}/events/${encodeURIComponent(eventId)}/replay`, 'Replay');
}

/** The per-organization, per-mode lists, paginated with the API's cursors. */
export const LISTS: Record<string, DashboardList> = {
  intents: dashboardList(intents, 'intents'),
  transactions: dashboardList(transactions, 'transactions'),
  events: dashboardList(events, 'events'),
  deliveries: dashboardList(deliveries, 'deliveries'),
};

export function listPage(ctx: PageContext, organization: OrganizationRow, mode: KeyMode, list: DashboardList, rows: SafeHtml): SafeHtml {
  return dashboardPage(
    ctx,
    `${list.title} · ${organization.name} (${modeName(mode)})`,
    html`<p><a href="${orgUrl(organization)}">Back to ${organization.name}</a></p>
${rows}`,
  );
}
