import type { PayerCard, PayerChoice, PayerView } from '../use-cases/payment-pages.js';
import { html, trusted, type Fragment, type SafeHtml } from './html.js';
import { fill, LANGUAGES, type Language, type Messages } from './i18n.js';

/** A picker link: the same page for another asset or network, in the same language; plain links work without script. */
export const pickHref = (lang: Language, choice: PayerChoice) => `?${new URLSearchParams({ asset: choice.asset, network: choice.network, lang })}`;

// Receipts are dated in UTC: the server cannot know the payer's zone, and a stated zone cannot be misread.
const DATE_FORMATS = Object.fromEntries(
  LANGUAGES.map((l) => [l, new Intl.DateTimeFormat(l, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' })]),
) as Record<Language, Intl.DateTimeFormat>;

function picker(label: string, choices: PayerChoice[], text: (c: PayerChoice) => string, current: (c: PayerChoice) => boolean, lang: Language): Fragment {
  // A single choice is no choice: nothing to pick.
  if (choices.length < 2) return null;
  return html`<nav class="picker" aria-label="${label}">
    <span class="picker-label" aria-hidden="true">${label}</span>
    <ul>${choices.map((c) => html`<li><a href="${pickHref(lang, c)}"${current(c) ? trusted(' aria-current="true"') : ''}>${text(c)}</a></li>`)}</ul>
  </nav>`;
}

function amountLine(t: Messages, view: PayerView, card: PayerCard): SafeHtml {
  const { currency, amount_remaining: remaining } = view.status;
  if (card.amount === null) return html`<p class="amount-line">${fill(t.noPrice, { remaining, currency, asset: card.asset })}</p>`;
  return html`<div class="amount-line">
      <span class="amount-label">${t.amountToSend}</span>
      <span class="amount-value"><code class="amount" id="amount">${card.amount}</code> ${card.asset}</span>
      ${card.asset === currency ? null : html`<span class="worth">${fill(t.worth, { remaining, currency })}</span>`}
      <button type="button" class="copy" data-copy="amount" data-copied="${t.amountCopied}">${t.copyAmount}</button>
    </div>`;
}

/** Pick the asset, then its network, and pay that one address: one QR code, the amount, and what not to send. */
function payStep(t: Messages, lang: Language, view: PayerView, card: PayerCard, qrCode: string): SafeHtml {
  const assets = view.choices.filter((c, i) => view.choices.findIndex((d) => d.asset === c.asset) === i);
  const networks = view.choices.filter((c) => c.asset === card.asset);
  const names = { asset: card.asset, network: card.networkName };
  return html`<h2>${t.chooseHow}</h2>
  ${picker(t.asset, assets, (c) => c.asset, (c) => c.asset === card.asset, lang)}
  ${picker(t.network, networks, (c) => c.networkName, (c) => c.network === card.network, lang)}
  <div class="address-card" data-asset="${card.asset}" data-network="${card.network}">
    <h3>${fill(t.on, names)}</h3>
    ${amountLine(t, view, card)}
    <p class="warning" role="note"><strong>${fill(t.onlyThis, names)}</strong> ${t.otherIsLost}</p>
    <div class="qr" role="img" aria-label="${fill(t.qrLabel, names)}" data-qr-text="${card.qrText}">${trusted(qrCode)}</div>
    <div class="address-line">
      <code class="address" id="address">${card.address}</code>
      <button type="button" class="copy" data-copy="address" data-copied="${t.addressCopied}">${t.copy}</button>
    </div>
  </div>`;
}

function lastPayment(view: PayerView, label: string): Fragment {
  const last = view.lastPayment;
  return last && html`<dt>${fill(label, { network: last.networkName })}</dt><dd><code class="tx">${last.txHash}</code></dd>`;
}

function receiptStep(t: Messages, lang: Language, view: PayerView): SafeHtml {
  const { status } = view;
  const completed = view.completedAt && new Date(view.completedAt);
  return html`<h2>${t.receipt}</h2>
  <dl class="receipt">
    <dt>${t.amountPaid}</dt><dd>${status.amount_received} ${status.currency}</dd>
    ${completed && html`<dt>${t.completedAt}</dt><dd><time datetime="${view.completedAt}">${DATE_FORMATS[lang].format(completed)} UTC</time></dd>`}
    ${lastPayment(view, t.transactionOn)}
  </dl>
  <p>${t.closeNow}</p>`;
}

function expiredStep(t: Messages, view: PayerView): SafeHtml {
  const { status } = view;
  if (status.amount_received === '0') return html`<p>${t.sendNothing}</p>`;
  return html`<p>${fill(t.lateMoney, { received: status.amount_received, currency: status.currency })}</p>
  <dl class="receipt">${lastPayment(view, t.lastTransactionOn)}</dl>`;
}

/** The section under the status: the payer's one next step. The page's script swaps it when the step changes. */
export function nextStepSection(t: Messages, lang: Language, view: PayerView, qrCode: string | null): SafeHtml {
  const body =
    view.step === 'pay'
      ? payStep(t, lang, view, view.card!, qrCode!)
      : view.step === 'confirming'
        ? html`<p>${t.noNeedToPay}</p>`
        : view.step === 'receipt'
          ? receiptStep(t, lang, view)
          : expiredStep(t, view);
  return html`<section class="next-step" id="next-step" data-step="${view.step}">${body}</section>`;
}
