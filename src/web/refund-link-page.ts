import { pairValue, REFUND_LINK_PATH } from '../domain/refund-address-requests.js';
import type { AddressProblem, PayerChoice, RefundLinkView } from '../use-cases/refund-address-requests.js';
import { html, trusted, type Fragment, type SafeHtml } from './html.js';
import { fill, MESSAGES, type Language, type Messages } from './i18n.js';
import { layout } from './layout.js';
import { languageSwitch, messagePage } from './pay-page.js';

/**
 * The refund link's pages: the form (network and address), the review (the address shown back, to confirm or
 * change), and the receipt. Plain forms posting to the link's own URLs: no script, no cookie; the token in the
 * path is the only capability, and it works once.
 */
export interface RefundPageInput {
  lang: Language;
  token: string;
  stylesheet: string;
  view: RefundLinkView;
}

const linkUrl = (token: string, lang: Language, step = '') => `${REFUND_LINK_PATH}/${token}${step}?lang=${lang}`;

function refundLayout({ lang, token, stylesheet, view }: RefundPageInput, title: string, body: Fragment): SafeHtml {
  const t = MESSAGES[lang];
  return layout({
    lang,
    title,
    stylesheet,
    body: html`
${view.sandbox ? html`<div class="test-banner" role="note">${t.testBanner}</div>` : null}
<header class="top">${languageSwitch(lang, t, (other) => linkUrl(token, other))}</header>
<main class="pay refund">
  <h1>${title}</h1>
  <p class="reference">${t.reference}: <strong>${view.refCode}</strong></p>
  ${body}
</main>`,
  });
}

function problemText(t: Messages, problem: AddressProblem, networkName: string | undefined): string {
  if (problem === 'network_required') return t.refundProblemNetwork;
  return problem === 'address_without_checksum' ? t.refundProblemChecksum : fill(t.refundProblemAddress, { network: networkName ?? '' });
}

/**
 * What came in on each pair and, once a refund took some of it, what was refunded and what is left, so a payer
 * who sees "2 USDC" is not misled into expecting 2 more after 1 went back.
 */
function receivedList(t: Messages, pairs: RefundLinkView['pairs']): SafeHtml {
  return html`<h2>${t.refundReceived}</h2>
  <ul class="received">${pairs.map(
    (p) =>
      html`<li>${fill(t.refundReceivedOn, { amount: p.received, asset: p.asset, network: p.networkName })}${
        p.refunded === '0' ? null : html`<span class="refunded">${fill(t.refundRefundedSoFar, { refunded: p.refunded, refundable: p.refundable, asset: p.asset })}</span>`
      }</li>`,
  )}</ul>`;
}

/** On a network whose addresses carry no checksum (Solana), that a typo would go unnoticed; nothing elsewhere. */
function noChecksumWarning(t: Messages, pair: RefundLinkView['pairs'][number] | undefined): SafeHtml | null {
  return pair && !pair.checksummed ? html`<p class="warning" role="note">${fill(t.refundNoChecksum, { network: pair.networkName })}</p>` : null;
}

export interface RefundFormState {
  pair?: string;
  address?: string;
  problem?: AddressProblem;
}

/** What came in on each pair, the warning, and the form: a network among those, and an address. */
export function refundFormPage(input: RefundPageInput, state: RefundFormState = {}): SafeHtml {
  const t = MESSAGES[input.lang];
  const { pairs } = input.view;
  // A single pair is chosen for the payer; with several, the payer picks one (none is pre-selected).
  const chosen = pairs.length === 1 ? pairValue(pairs[0]!) : state.pair;
  const chosenPair = pairs.find((p) => pairValue(p) === chosen);
  const problem = state.problem && problemText(t, state.problem, chosenPair?.networkName);
  const addressProblem = state.problem && state.problem !== 'network_required';
  return refundLayout(
    input,
    t.refundTitle,
    html`${receivedList(t, pairs)}
  <p class="warning" role="note"><strong>${t.refundOwnWallet}</strong> ${t.refundNoExchange}</p>
  <form class="refund-form" method="post" action="${linkUrl(input.token, input.lang, '/review')}">
    ${problem ? html`<p class="problem" id="problem" role="alert">${problem}</p>` : null}
    <fieldset${state.problem === 'network_required' ? trusted(' aria-describedby="problem"') : ''}>
      <legend>${t.refundNetwork}</legend>
      <p class="hint" id="network-hint">${t.refundNetworkHint}</p>
      ${pairs.map(
        (p) => html`<label class="choice"><input type="radio" name="pair" value="${pairValue(p)}" required${pairValue(p) === chosen ? trusted(' checked') : ''}> ${fill(t.on, { asset: p.asset, network: p.networkName })}</label>`,
      )}
    </fieldset>
    <label class="field-label" for="address">${t.refundAddress}</label>
    ${noChecksumWarning(t, chosenPair)}
    <input class="address-input" id="address" name="address" type="text" value="${state.address ?? ''}" required maxlength="128"
      autocomplete="off" autocapitalize="off" autocorrect="off" spellcheck="false"${addressProblem ? trusted(' aria-invalid="true" aria-describedby="problem"') : ''}>
    <button type="submit" class="primary">${t.refundContinue}</button>
  </form>`,
  );
}

function choiceList(t: Messages, choice: PayerChoice): SafeHtml {
  return html`<dl class="receipt">
    <dt>${t.network}</dt><dd>${fill(t.on, { asset: choice.asset, network: choice.networkName })}</dd>
    <dt>${t.refundAddressShown}</dt><dd><code class="address" id="address">${choice.address}</code></dd>
  </dl>`;
}

/** The address shown back: confirm it (submits, once), or change it (the form again, filled in). */
export function refundReviewPage(input: RefundPageInput, choice: PayerChoice): SafeHtml {
  const t = MESSAGES[input.lang];
  return refundLayout(
    input,
    t.refundReviewTitle,
    html`${choiceList(t, choice)}
  <p class="warning" role="note">${t.refundReviewBody}</p>
  ${noChecksumWarning(t, input.view.pairs.find((p) => pairValue(p) === pairValue(choice)))}
  <form class="refund-form" method="post" action="${linkUrl(input.token, input.lang, '/submit')}">
    <input type="hidden" name="pair" value="${pairValue(choice)}">
    <input type="hidden" name="address" value="${choice.address}">
    <div class="actions">
      <button type="submit" class="primary">${t.refundConfirm}</button>
      <button type="submit" class="secondary" formaction="${linkUrl(input.token, input.lang)}">${t.refundChange}</button>
    </div>
  </form>`,
  );
}

/**
 * The address recorded: after Confirm, and again whenever the used link is opened or posted to (a reload, a
 * second click), with what was refunded since, so the payer can follow the refund.
 */
export function refundDonePage(input: RefundPageInput, choice: PayerChoice): SafeHtml {
  const t = MESSAGES[input.lang];
  return refundLayout(input, t.refundDoneTitle, html`${choiceList(t, choice)}<p>${t.refundDoneBody}</p>
  ${receivedList(t, input.view.pairs)}`);
}

/** One page for every link that opens nothing (unknown, cancelled, expired while open): it tells which of them it is to no one. */
export const linkNotValidPage = (lang: Language, stylesheet: string, token: string) =>
  messagePage(lang, stylesheet, MESSAGES[lang].refundInvalidTitle, MESSAGES[lang].refundInvalidBody, (other) => linkUrl(token, other));
