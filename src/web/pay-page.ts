import type { PayerPendingDeposit, PayerStatus, PayerView } from '../use-cases/payment-pages.js';
import { html, jsonData, trusted, type SafeHtml } from './html.js';
import { fill, LANGUAGES, MESSAGES, type Language, type Messages } from './i18n.js';
import { layout } from './layout.js';

export interface PageAssets {
  stylesheet: string;
  script: string;
}

/** The status line for a state, as the server renders it; the page's script renders the same templates. */
export function statusText(t: Messages, status: PayerStatus): string {
  const values = { received: status.amount_received, remaining: status.amount_remaining, currency: status.currency };
  if (status.state === 'expired' && status.amount_received !== '0') return fill(t.expiredWithCredit, values);
  return fill(t[status.state], values);
}

/** The line of a deposit seen on chain but not confirmed yet; the page's script fills the same template. */
export function pendingText(t: Messages, deposit: PayerPendingDeposit): string {
  return fill(t.pendingDeposit, {
    amount: deposit.amount,
    asset: deposit.asset,
    network: deposit.network_name,
    confirmations: String(deposit.confirmations),
    required: String(deposit.confirmations_required),
  });
}

function languageSwitch(lang: Language, t: Messages): SafeHtml {
  const other = LANGUAGES.find((l) => l !== lang)!;
  return html`<nav class="lang"><a href="?lang=${other}" hreflang="${other}" lang="${other}">${t.switchTo}</a></nav>`;
}

export interface PayPageInput {
  view: PayerView;
  lang: Language;
  /** Each address's QR code, as SVG, in the order of `view.addresses`. */
  qrCodes: string[];
  statusUrl: string;
  simulateUrl: string;
  now: Date;
  assets: PageAssets;
}

export function payPage({ view, lang, qrCodes, statusUrl, simulateUrl, now, assets }: PayPageInput): SafeHtml {
  const t = MESSAGES[lang];
  const { status } = view;
  const title = fill(t.title, { amount: status.amount, currency: status.currency });
  const open = status.state === 'waiting' || status.state === 'partial';
  return layout({
    lang,
    title,
    stylesheet: assets.stylesheet,
    script: assets.script,
    body: html`
${view.sandbox ? html`<div class="test-banner" role="note">${t.testBanner}</div>` : null}
<header class="top">${languageSwitch(lang, t)}</header>
<main class="pay">
  <h1>${title}</h1>
  <p class="reference">${t.reference}: <strong>${view.refCode}</strong></p>
  <section class="status" id="status" data-state="${status.state}" aria-live="polite">
    <p id="status-text">${statusText(t, status)}</p>
    <ul class="pending" id="pending"${status.pending_deposits.length > 0 ? '' : trusted(' hidden')}>${status.pending_deposits.map(
      (d) => html`<li>${pendingText(t, d)}</li>`,
    )}</ul>
    <p class="countdown"${open ? '' : trusted(' hidden')}>${t.timeLeft}: <time id="countdown" datetime="${status.expires_at}"></time></p>
  </section>
  ${view.sandbox ? html`<button type="button" id="simulate" class="simulate"${open ? '' : trusted(' hidden')}>${t.simulate}</button>` : null}
  <h2>${t.sendTo}</h2>
  <ul class="addresses">
    ${view.addresses.map(
      (a, i) => html`<li class="address-card" data-asset="${a.asset}" data-network="${a.network}">
      <h3>${fill(t.on, { asset: a.asset, network: a.networkName })}</h3>
      <div class="qr" role="img" aria-label="${fill(t.qrLabel, { asset: a.asset, network: a.networkName })}" data-qr-text="${a.qrText}">${trusted(qrCodes[i]!)}</div>
      <div class="address-line">
        <code class="address" id="address-${i}">${a.address}</code>
        <button type="button" class="copy" data-copy="address-${i}">${t.copy}</button>
      </div>
    </li>`,
    )}
  </ul>
  <p class="copy-feedback" id="copy-feedback" role="status" aria-live="polite"></p>
</main>
${jsonData('pay-data', {
  statusUrl,
  simulateUrl: view.sandbox ? simulateUrl : null,
  serverNow: now.toISOString(),
  status,
  messages: {
    waiting: t.waiting,
    partial: t.partial,
    completed: t.completed,
    expired: t.expired,
    expiredWithCredit: t.expiredWithCredit,
    pendingDeposit: t.pendingDeposit,
    copied: t.copied,
    copyFailed: t.copyFailed,
    simulate: t.simulate,
    simulating: t.simulating,
    simulateFailed: t.simulateFailed,
  },
})}`,
  });
}

export function notFoundPage(lang: Language, stylesheet: string): SafeHtml {
  const t = MESSAGES[lang];
  return layout({
    lang,
    title: t.notFoundTitle,
    stylesheet,
    body: html`<header class="top">${languageSwitch(lang, t)}</header>
<main class="pay not-found">
  <h1>${t.notFoundTitle}</h1>
  <p>${t.notFoundBody}</p>
</main>`,
  });
}
