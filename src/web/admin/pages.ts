import type { KeyMode } from '../../domain/api-keys.js';
import { codePoint, escapeIdentifier, isRefusedCharacter, MAX_IDENTIFIER } from '../../domain/identifiers.js';
import { html, type Fragment, type SafeHtml } from '../html.js';
import { layout } from '../layout.js';

export const DASHBOARD = '/admin';

/**
 * The longest search, in characters: an external_ref (255) as the dashboard escapes it, each character at most
 * `\u{10FFFF}`, the longest identifier searched for.
 */
export const MAX_SEARCH_LENGTH = MAX_IDENTIFIER * '\\u{10FFFF}'.length;

/** What every signed-in page needs: its stylesheet and the session's CSRF token for its forms. */
export interface PageContext {
  stylesheet: string;
  csrf: string;
  /** The business clock's time, for states decided at read time (an intent past expiry is expired). */
  now: Date;
}

export const modeName = (mode: KeyMode) => (mode === 'live' ? 'live' : 'sandbox');

/** Every signed-in page: the navigation, the one search box (holding `search`, the text searched for), the body. */
export function dashboardPage(ctx: PageContext, title: string, body: Fragment, search = ''): SafeHtml {
  return layout({
    lang: 'en',
    title: `${title} · Connect Payments`,
    stylesheet: ctx.stylesheet,
    body: html`<header class="topbar">
  <a class="brand" href="${DASHBOARD}/overview">Connect Payments · operator</a>
  <nav aria-label="Dashboard"><a href="${DASHBOARD}/overview">Overview</a> <a href="${DASHBOARD}/organizations">Organizations</a> <a href="${DASHBOARD}/payouts">Open live payouts</a> <a href="${DASHBOARD}/reconciliation">Reconciliation</a> <a href="${DASHBOARD}/treasury">Treasury</a></nav>
  <form role="search" method="get" action="${DASHBOARD}/search" class="search">
    <label for="search-box" class="visually-hidden">Search</label>
    <input id="search-box" name="q" type="search" value="${search}" maxlength="${MAX_SEARCH_LENGTH}" placeholder="Ref code, id, hash, address, external ref">
    <button type="submit">Search</button>
  </form>
  ${actionButton(ctx, `${DASHBOARD}/sign-out`, 'Sign out', 'link')}
</header>
<main class="dashboard">
<h1>${title}</h1>
${body}
</main>`,
  });
}

export function signInPage(stylesheet: string, problem: string | null): SafeHtml {
  return layout({
    lang: 'en',
    title: 'Sign in · Connect Payments',
    stylesheet,
    body: html`<main class="dashboard sign-in">
<h1>Operator sign-in</h1>
${problem ? html`<p class="problem" role="alert">${problem}</p>` : null}
<form method="post" action="${DASHBOARD}/sign-in">
  <label for="token">Operator token</label>
  <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
  <button type="submit">Sign in</button>
</form>
</main>`,
  });
}

/** An address under /admin that is no page: said in a page, with the way back. */
export function pageNotFoundPage(stylesheet: string): SafeHtml {
  return layout({
    lang: 'en',
    title: 'Page not found · Connect Payments',
    stylesheet,
    body: html`<main class="dashboard sign-in">
<h1>Page not found</h1>
<p class="problem" role="alert">There is no dashboard page at this address.</p>
<p><a href="${DASHBOARD}/overview">Go to the overview</a></p>
</main>`,
  });
}

/** A POST form of one button, carrying the session's CSRF token (and any hidden fields). */
export function actionButton(ctx: PageContext, action: string, label: string, style: 'button' | 'link' = 'button', fields: Record<string, string> = {}): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">
<input type="hidden" name="_csrf" value="${ctx.csrf}">
${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" class="${style}">${label}</button></form>`;
}

export interface Column<Row> {
  label: string;
  cell: (row: Row) => Fragment;
  numeric?: boolean;
}

/**
 * A table of rows, and a link to the next page when there is one (the API's cursors, passed along). Under a
 * heading that already names it (`captioned` false) the name is only its accessible name: headings do not repeat.
 */
export function table<Row>(caption: string, columns: Column<Row>[], rows: Row[], next: string | null = null, captioned = true): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">No ${caption.toLowerCase()} yet.</p>`;
  return html`<div class="table-wrap"><table${captioned ? null : html` aria-label="${caption}"`}>
${captioned ? html`<caption>${caption}</caption>` : null}
<thead><tr>${columns.map((c) => html`<th scope="col"${c.numeric ? html` class="num"` : null}>${c.label}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${columns.map((c) => html`<td${c.numeric ? html` class="num"` : null}>${c.cell(row)}</td>`)}</tr>`)}</tbody>
</table></div>
${next ? html`<p class="pager"><a href="${next}" rel="next">Next page</a></p>` : null}`;
}

export const time = (at: Date | null) => (at ? html`<time datetime="${at.toISOString()}">${at.toISOString().replace('T', ' ').slice(0, 19)}</time>` : '—');

/**
 * An identifier (an external_ref) shown so that lookalikes differ: isolated from the text around it (<bdi>), every
 * character outside printable ASCII marked with its code point, an invisible one (or an edge space) shown as its
 * code point only, and then the whole ref escaped to ASCII, which the search box also takes.
 */
export function identifier(value: string): SafeHtml {
  const chars = [...value];
  const marked = chars.map((char, i) => {
    const edgeSpace = char === ' ' && (i === 0 || i === chars.length - 1);
    if (edgeSpace || isRefusedCharacter(char)) return html`<mark class="invisible" title="${codePoint(char)}">${codePoint(char)}</mark>`;
    return char >= ' ' && char <= '~' ? char : html`<mark title="${codePoint(char)}">${char}</mark>`;
  });
  const escaped = escapeIdentifier(value);
  return html`<bdi class="identifier">${marked}</bdi>${escaped === value ? null : html` <code class="escaped" title="The ref in ASCII: every other character as \\u{…}">${escaped}</code>`}`;
}

export function facts(entries: [string, Fragment][]): SafeHtml {
  return html`<dl class="facts">${entries.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}
