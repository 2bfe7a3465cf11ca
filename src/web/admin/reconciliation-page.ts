import type { ReconciliationRow } from '../../use-cases/reconciliation.js';
import { html, type SafeHtml } from '../html.js';
import { DASHBOARD, dashboardPage, table, time, type PageContext } from './pages.js';

const amount = (value: string | null, asset: string) => (value === null ? '—' : `${value} ${asset}`);

/** The drifting addresses of one network and asset, each linked to the search (which opens its deposit address). */
function driftingAddresses(row: ReconciliationRow): SafeHtml {
  const { addresses, addresses_left_out: leftOut } = row.details;
  return html`<h3>${row.asset} on ${row.network}: addresses holding other than what was credited</h3>
${table(
  `Drifting ${row.asset} addresses on ${row.network}`,
  [
    { label: 'Address', cell: (a) => html`<a href="${DASHBOARD}/search?q=${encodeURIComponent(a.address)}"><code>${a.address}</code></a>` },
    { label: 'Why', cell: (a) => a.reason },
    { label: 'On chain', cell: (a) => a.on_chain, numeric: true },
    { label: 'Credited', cell: (a) => a.credited, numeric: true },
    { label: 'Pending', cell: (a) => a.pending, numeric: true },
    { label: 'Drift', cell: (a) => a.drift, numeric: true },
  ],
  addresses,
  null,
  false,
)}
${leftOut > 0 ? html`<p>… and ${leftOut} more (<code>GET /admin/v1/reconciliation</code>).</p>` : null}`;
}

/**
 * The latest reconciliation of every live network and asset (docs/reconciliation.md), as the periodic job or the
 * CLI stored it; the addresses behind any drift under it.
 */
export function reconciliationPage(ctx: PageContext, rows: ReconciliationRow[]): SafeHtml {
  return dashboardPage(
    ctx,
    'Reconciliation',
    html`<p>On-chain balances of the live deposit addresses and hot wallets against what the ledger owes, per network and asset:
the latest run (every <code>CONNECT_RECONCILE_INTERVAL_SECONDS</code>, or <code>connect-payments reconcile</code>). A surplus is
normal with a funded hot wallet; a shortfall is money owed that is not on chain. How to read it: docs/reconciliation.md.</p>
${table(
  'Latest reconciliation',
  [
    { label: 'Network', cell: (r) => r.network },
    { label: 'Asset', cell: (r) => r.asset },
    { label: 'Status', cell: (r) => html`<strong>${r.status}</strong>` },
    { label: 'On chain', cell: (r) => amount(r.onchain_total, r.asset), numeric: true },
    { label: 'Ledger', cell: (r) => amount(r.ledger_total, r.asset), numeric: true },
    { label: 'Drift', cell: (r) => amount(r.drift, r.asset), numeric: true },
    { label: 'Hot wallet', cell: (r) => (r.details.hot_wallet ? amount(r.details.hot_wallet.balance, r.asset) : 'none'), numeric: true },
    { label: 'Paid out', cell: (r) => (r.details.hot_wallet ? amount(r.details.hot_wallet.paid_out, r.asset) : '—'), numeric: true },
    { label: 'Checked', cell: (r) => time(r.checked_at) },
    { label: 'Chain last read', cell: (r) => time(r.reconciled_at) },
    { label: 'Error', cell: (r) => r.error ?? '—' },
  ],
  rows,
  null,
  false,
)}
${rows.filter((row) => row.details.addresses.length > 0).map(driftingAddresses)}`,
  );
}
