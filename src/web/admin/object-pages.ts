import type { KeyMode } from '../../domain/api-keys.js';
import { DomainError } from '../../domain/errors.js';
import { escapeIdentifier } from '../../domain/identifiers.js';
import { UNSTORABLE } from '../../domain/text.js';
import { MAX_FOUND, OBJECT_KINDS, type Found, type IntentRefund, type ObjectKind } from '../../use-cases/dashboard.js';
import { html, type Fragment, type SafeHtml } from '../html.js';
import { payoutUrl } from './payout-pages.js';
import { DASHBOARD, dashboardPage, facts, identifier, MAX_SEARCH_LENGTH, modeName, table, time, type PageContext } from './pages.js';

export const isObjectKind = (value: string): value is ObjectKind => (OBJECT_KINDS as readonly string[]).includes(value);

/** Where the dashboard shows an object: a live payout on its payout engine page, anything else on its own page. */
export function objectUrl(kind: ObjectKind, id: string, mode: KeyMode): string {
  if (kind === 'payout' && mode === 'live') return payoutUrl(id);
  return `${DASHBOARD}/objects/${kind}/${encodeURIComponent(id)}`;
}

/** An id shown as a link to its object's page (`kind` as events name it; one the dashboard has no page for stays text). */
export function objectLink(kind: string | null, id: string, mode: KeyMode): SafeHtml {
  return kind && isObjectKind(kind) ? html`<a href="${objectUrl(kind, id, mode)}"><code>${id}</code></a>` : html`<code>${id}</code>`;
}

/**
 * The search box's text as sent (an external_ref stored before the identifier rule may hold spaces at its ends, a
 * TAB or a line break: nothing is trimmed away here); null when blank. Refused with a 400 page: a repeated
 * parameter, an overlong text, what no stored text can hold (NUL, an unpaired surrogate).
 */
export function searchTerm(raw: unknown): string | null {
  if (raw === undefined) return null;
  if (typeof raw !== 'string') throw new DomainError('invalid_request', 'Search for one text at a time.', 'q');
  if ([...raw].length > MAX_SEARCH_LENGTH) throw new DomainError('invalid_request', `A search is at most ${MAX_SEARCH_LENGTH} characters.`, 'q');
  if (UNSTORABLE.test(raw)) throw new DomainError('invalid_request', 'A search cannot contain NUL or an unpaired surrogate.', 'q');
  return raw.trim() === '' ? null : raw;
}

const KIND_NAMES: Record<ObjectKind, string> = {
  payment_intent: 'Payment intent',
  payout: 'Payout',
  transaction: 'Transaction',
  address: 'Deposit address',
};
const MATCHED_NAMES: Record<Found['matched'], string> = {
  id: 'id',
  ref_code: 'ref code',
  external_ref: 'external ref',
  tx_hash: 'transaction hash',
  address: 'address',
};

export function searchPage(ctx: PageContext, term: string | null, found: Found[]): SafeHtml {
  if (term === null) {
    return dashboardPage(
      ctx,
      'Search',
      html`<p>Type a ref code, an external ref, the id of a payment intent, payout, transaction or deposit address, an on-chain transaction hash or a deposit address into the search box above. Every organization and both modes are searched.</p>`,
    );
  }
  return dashboardPage(
    ctx,
    // A title holds no markup: the text as the dashboard escapes identifiers, so an invisible character shows.
    `Search: ${escapeIdentifier(term)}`,
    found.length === 0
      ? html`<p class="empty">Nothing matches.</p>`
      : html`${found.length === MAX_FOUND ? html`<p>The first ${MAX_FOUND} matches, newest first.</p>` : null}
${table(
  'matches',
  [
    { label: 'Object', cell: (f) => html`<a href="${objectUrl(f.kind, f.id, f.mode)}">${KIND_NAMES[f.kind]} <code>${f.id}</code></a>` },
    { label: 'Matched by', cell: (f) => MATCHED_NAMES[f.matched] },
    { label: 'Organization', cell: (f) => html`<a href="${DASHBOARD}/organizations/${f.organization_id}">${f.organization_name}</a>` },
    { label: 'Mode', cell: (f) => modeName(f.mode) },
    { label: 'Summary', cell: (f) => f.summary },
    { label: 'Created', cell: (f) => time(f.created_at) },
  ],
  found,
  null,
  false,
)}`,
    term,
  );
}

/** A column's value: ids linked to their pages, times as times, JSON as code. */
function value(column: string, raw: unknown, mode: KeyMode): Fragment {
  if (raw === null || raw === undefined) return '—';
  if (raw instanceof Date) return time(raw);
  if (column === 'organization_id') return html`<a href="${DASHBOARD}/organizations/${String(raw)}"><code>${String(raw)}</code></a>`;
  if (column === 'external_ref') return identifier(String(raw));
  if (column === 'ref_code') return html`<a href="/pay/${String(raw)}">${String(raw)}</a>`;
  const linked = /^(payment_intent|address|transaction)_id$/.exec(column)?.[1];
  if (linked) return objectLink(linked, String(raw), mode);
  return typeof raw === 'object' ? html`<code>${JSON.stringify(raw)}</code>` : String(raw);
}

/**
 * One object as stored, every column, and the events about it (what an event's "related to" leads to); a payment
 * intent also lists its refunds (`refunds`, null for other kinds), each linked to its payout page.
 */
export function objectPage(
  ctx: PageContext,
  kind: ObjectKind,
  row: Record<string, unknown>,
  events: { id: string; type: string; created_at: Date }[],
  refunds: IntentRefund[] | null = null,
): SafeHtml {
  const mode = row.mode as KeyMode;
  return dashboardPage(
    ctx,
    `${KIND_NAMES[kind]} ${String(row.id)}`,
    html`${facts(Object.entries(row).map(([column, raw]) => [column, value(column, raw, mode)]))}
${refunds && html`<h2>Refunds</h2>
${table('refunds', [
  { label: 'Refund', cell: (r) => objectLink('payout', r.id, mode) },
  { label: 'Status', cell: (r) => r.status },
  { label: 'Refunded', cell: (r) => `${r.refund_amount} ${r.asset}`, numeric: true },
  { label: 'Payer gets', cell: (r) => `${r.recipient_gets} ${r.asset}`, numeric: true },
  { label: 'Network', cell: (r) => r.network },
  { label: 'To', cell: (r) => html`<code>${r.destination}</code>` },
  { label: 'Transaction hash', cell: (r) => (r.tx_hash ? html`<code>${r.tx_hash}</code>` : '—') },
  { label: 'Created', cell: (r) => time(r.created_at) },
], refunds, null, false)}`}
<h2>Events</h2>
${table('events', [
  { label: 'Id', cell: (e) => html`<code>${e.id}</code>` },
  { label: 'Type', cell: (e) => e.type },
  { label: 'Created', cell: (e) => time(e.created_at) },
], events, null, false)}`,
  );
}
