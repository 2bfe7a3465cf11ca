import type { TreasuryStatus } from '../../use-cases/treasury.js';
import { html, type SafeHtml } from '../html.js';
import { dashboardPage, table, time, type PageContext } from './pages.js';

const inAsset = (value: string | null | undefined, asset: string) => (value == null ? '—' : `${value} ${asset}`);

/**
 * Where the treasury stands per network and asset of the policy (docs/treasury.md): the latest plan, as the
 * periodic job or `connect-payments treasury plan` stored it. Nothing is read on chain to draw it.
 */
export function treasuryPage(ctx: PageContext, rows: TreasuryStatus[]): SafeHtml {
  return dashboardPage(
    ctx,
    'Treasury',
    html`<p>The hot wallets' floats against the policy (<code>CONNECT_TREASURY_FILE</code>), what the deposit addresses hold, and
what a sweep plan would move and leave: the latest plan of each network (every <code>sweep_every_seconds</code>, or
<code>connect-payments treasury plan</code>). How to read it: docs/treasury.md.</p>
${table(
  'Treasury by network and asset',
  [
    { label: 'Network', cell: (r) => r.policy.network },
    { label: 'Asset', cell: (r) => r.policy.asset },
    { label: 'Sweeping', cell: (r) => (r.pause ? html`<strong>paused</strong>: ${r.pause.reason}` : 'on') },
    { label: 'Float', cell: (r) => (r.latest?.float_level ? html`<strong>${r.latest.float_level}</strong>` : '—') },
    { label: 'Hot wallet', cell: (r) => inAsset(r.latest?.summary?.hot_wallet.balance, r.policy.asset), numeric: true },
    { label: 'Owed to pending payouts', cell: (r) => inAsset(r.latest?.summary?.hot_wallet.owed, r.policy.asset), numeric: true },
    { label: 'Target', cell: (r) => inAsset(r.policy.floatTarget.toFixed(), r.policy.asset), numeric: true },
    { label: 'On deposit addresses', cell: (r) => inAsset(r.latest?.summary?.deposit_addresses.on_chain, r.policy.asset), numeric: true },
    { label: 'Sweepable', cell: (r) => (r.latest?.summary ? `${r.latest.summary.planned.sweeps} sweeps: ${r.latest.summary.planned.to_hot_wallet} to hot, ${r.latest.summary.planned.to_cold_storage} to cold` : '—') },
    { label: 'Below minimum', cell: (r) => inAsset(r.latest?.summary?.left.below_minimum, r.policy.asset), numeric: true },
    { label: 'Too costly', cell: (r) => inAsset(r.latest?.summary?.left.too_costly, r.policy.asset), numeric: true },
    { label: 'Cold storage', cell: (r) => (r.latest?.summary?.cold_storage ? inAsset(r.latest.summary.cold_storage.balance, r.policy.asset) : 'none'), numeric: true },
    { label: 'Planned', cell: (r) => time(r.latest?.planned_at ?? null) },
    { label: 'Error', cell: (r) => r.latest?.error ?? '—' },
  ],
  rows,
  null,
  false,
)}
<p>Sweeps are not sent by the service yet: empty deposit addresses into the hot wallet with your offline wallet
(docs/treasury.md says what is still manual).</p>`,
  );
}
