import { isTerminal } from '../../domain/payouts.js';
import { html, type SafeHtml } from '../html.js';
import type { LivePayout, LivePayoutView, SignedTxView } from '../../use-cases/operator-payouts.js';
import { actionButton, DASHBOARD, dashboardPage, facts, table, time, type PageContext } from './pages.js';

export const payoutUrl = (id: string) => `${DASHBOARD}/payouts/${id}`;
const hash = (value: string | null) => (value ? html`<code>${value}</code>` : '—');
const orgLink = (payout: LivePayout) => html`<a href="${DASHBOARD}/organizations/${payout.organization_id}"><code>${payout.organization_id}</code></a>`;

/** Open live payouts of every organization, oldest first: where a stuck one is found. */
export function openPayoutsPage(ctx: PageContext, rows: LivePayout[], next: string | null): SafeHtml {
  return dashboardPage(
    ctx,
    'Open live payouts',
    html`<p>Live payouts still pending or processing, the one open longest first.</p>
${table(
  'Open live payouts',
  [
    { label: 'Payout', cell: (p) => html`<a href="${payoutUrl(p.id)}"><code>${p.id}</code></a>` },
    { label: 'Organization', cell: orgLink },
    { label: 'Status', cell: (p) => p.status },
    { label: 'Amount', cell: (p) => `${p.amount} ${p.asset}`, numeric: true },
    { label: 'Network', cell: (p) => p.network },
    { label: 'Attempts', cell: (p) => p.attempts, numeric: true },
    { label: 'Last error', cell: (p) => p.last_error ?? '—' },
    { label: 'Cancel requested', cell: (p) => time(p.cancel_requested_at) },
    { label: 'Created', cell: (p) => time(p.created_at) },
  ],
  rows,
  next && `?cursor=${encodeURIComponent(next)}`,
  false,
)}`,
  );
}

const fee = (tx: SignedTxView, value: (fees: NonNullable<SignedTxView['fees']>) => bigint) => (tx.fees ? value(tx.fees).toString() : '—');

/** One live payout as the operator API shows it, with a Cancel button while it is open and no cancel was asked. */
export function payoutPage(ctx: PageContext, { payout, chain }: LivePayoutView): SafeHtml {
  return dashboardPage(
    ctx,
    `Live payout ${payout.id}`,
    html`${facts([
      ['Organization', orgLink(payout)],
      ['Status', payout.status],
      ['Amount', `${payout.amount} ${payout.asset} on ${payout.network} (the payer sends ${payout.user_sends})`],
      ['Destination', hash(payout.destination)],
      ['Transaction', hash(payout.tx_hash)],
      ['Failure reason', payout.failure_reason ?? '—'],
      ['Created', time(payout.created_at)],
    ])}
${!isTerminal(payout.status) && !payout.cancel_requested_at ? actionButton(ctx, `${payoutUrl(payout.id)}/cancel`, 'Cancel payout') : null}
<h2>Payout engine</h2>
${facts([
  ['Attempts', payout.attempts],
  ['Last error', payout.last_error ?? '—'],
  ['Next attempt', time(payout.next_attempt_at)],
  ['Lease', payout.lease_held ? 'held: an attempt is under way' : 'free'],
  ['Cancel requested', time(payout.cancel_requested_at)],
])}
<h2>On chain</h2>
${chain
  ? html`${facts([
      ['Nonce', chain.nonce],
      ['Nonce status', chain.status],
      ['Fee cap (wei)', chain.fee_cap_wei ?? '—'],
      ['Last broadcast', time(chain.broadcast_at)],
      ['Current transaction', chain.tx_hash ? html`${hash(chain.tx_hash)} (${chain.purpose})` : '—'],
    ])}
${table(
  'Transactions signed at the nonce, newest first',
  [
    { label: 'Hash', cell: (tx) => hash(tx.tx_hash) },
    { label: 'Purpose', cell: (tx) => tx.purpose },
    { label: 'Max fee per gas (wei)', cell: (tx) => fee(tx, (f) => f.maxFeePerGas), numeric: true },
    { label: 'Max priority fee per gas (wei)', cell: (tx) => fee(tx, (f) => f.maxPriorityFeePerGas), numeric: true },
    { label: 'Gas', cell: (tx) => fee(tx, (f) => f.gas), numeric: true },
  ],
  chain.transactions,
)}`
  : html`<p class="empty">No nonce of the hot wallet held: nothing signed.</p>`}`,
  );
}
