import { nextStep, type PayerPendingDeposit, type PayerStatus, type PayerView } from '../use-cases/payment-pages.js';
import { html, jsonData, trusted, type SafeHtml } from './html.js';
import { fill, LANGUAGES, MESSAGES, type Language, type Messages } from './i18n.js';
import { layout } from './layout.js';
import { nextStepSection, pickHref } from './pay-steps.js';

export interface PageAssets {
  stylesheet: string;
  script: string;
}

/** The status line for a state, as the server renders it; the page's script renders the same templates. */
export function statusText(t: Messages, status: PayerStatus): string {
  const values = { received: status.amount_received, remaining: status.amount_remaining, currency: status.currency };
  if (status.state === 'expired' && status.amount_received !== '0') return fill(t.expiredWithCredit, values);
  if (nextStep(status) === 'confirming') return t.confirming;
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

/** The same page in the other language, by default this URL with `?lang=`. */
export function languageSwitch(lang: Language, t: Messages, href: (other: Language) => string = (other) => `?lang=${other}`): SafeHtml {
  const other = LANGUAGES.find((l) => l !== lang)!;
  return html`<nav class="lang"><a href="${href(other)}" hreflang="${other}" lang="${other}">${t.switchTo}</a></nav>`;
}

export interface PayPageInput {
  view: PayerView;
  lang: Language;
  /** The card's QR code, as SVG; null when the step shows no card. */
  qrCode: string | null;
  statusUrl: string;
  simulateUrl: string;
  now: Date;
  assets: PageAssets;
}

export function payPage({ view, lang, qrCode, statusUrl, simulateUrl, now, assets }: PayPageInput): SafeHtml {
  const t = MESSAGES[lang];
  const { status } = view;
  const title = fill(t.title, { amount: status.amount, currency: status.currency });
  const paying = view.step === 'pay';
  return layout({
    lang,
    title,
    stylesheet: assets.stylesheet,
    script: assets.script,
    // On a payment card, the other language keeps the asset and network picked.
    body: html`
${view.sandbox ? html`<div class="test-banner" role="note">${t.testBanner}</div>` : null}
<header class="top">${languageSwitch(lang, t, view.card ? (other) => pickHref(other, view.card!) : undefined)}</header>
<main class="pay">
  <h1>${title}</h1>
  <p class="reference">${t.reference}: <strong>${view.refCode}</strong></p>
  <section class="status" id="status" data-state="${status.state}" aria-live="polite">
    <p id="status-text">${statusText(t, status)}</p>
    <ul class="pending" id="pending"${status.pending_deposits.length > 0 ? '' : trusted(' hidden')}>${status.pending_deposits.map(
      (d) => html`<li>${pendingText(t, d)}</li>`,
    )}</ul>
    <p class="countdown"${paying ? '' : trusted(' hidden')}>${t.timeLeft}: <time id="countdown" datetime="${status.expires_at}"></time></p>
  </section>
  ${view.sandbox ? html`<button type="button" id="simulate" class="simulate"${paying ? '' : trusted(' hidden')}>${t.simulate}</button>` : null}
  ${nextStepSection(t, lang, view, qrCode)}
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
    confirming: t.confirming,
    pendingDeposit: t.pendingDeposit,
    copyFailed: t.copyFailed,
    simulate: t.simulate,
    simulating: t.simulating,
    simulateFailed: t.simulateFailed,
  },
})}`,
  });
}

/** A page with only a message: no intent to show (unknown, or the visitor over its rate limit), or no link. */
export function messagePage(lang: Language, stylesheet: string, title: string, body: string, href?: (other: Language) => string): SafeHtml {
  const t = MESSAGES[lang];
  return layout({
    lang,
    title,
    stylesheet,
    body: html`<header class="top">${languageSwitch(lang, t, href)}</header>
<main class="pay message">
  <h1>${title}</h1>
  <p>${body}</p>
</main>`,
  });
}

export const notFoundPage = (lang: Language, stylesheet: string) => messagePage(lang, stylesheet, MESSAGES[lang].notFoundTitle, MESSAGES[lang].notFoundBody);

export function tooManyRequestsPage(lang: Language, stylesheet: string, retryAfterSeconds: string): SafeHtml {
  const t = MESSAGES[lang];
  return messagePage(lang, stylesheet, t.tooManyTitle, fill(t.tooManyBody, { seconds: retryAfterSeconds }));
}
