import { Type, type Static } from 'typebox';
import { DRIFT_REASONS, RECONCILIATION_STATUSES } from '../../domain/reconciliation.js';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { CodeText, errorResponses, iso, isoOrNull, Nullable, Timestamp } from '../../http/schemas.js';
import type { ReconciliationRow } from '../../use-cases/reconciliation.js';

const tags = ['operator'];
const Amount = (description: string) => Type.String({ description: `${description} A decimal string, in the asset.` });
const NullableAmount = (description: string) => Nullable(Amount(`${description} Null while the chain is unavailable.`));

const DriftingAddress = Type.Object(
  {
    address: Type.String(),
    organization_ids: Type.Array(Type.String({ format: 'uuid' }), { description: 'The organizations the address was handed out to.' }),
    on_chain: Amount('What the address holds now.'),
    credited: Amount('Confirmed deposits credited to it (nothing is swept, so this is what it should hold).'),
    pending: Amount('Deposits seen and not credited yet: waiting for confirmations, or quarantined.'),
    drift: Amount('on_chain − credited.'),
    reason: Type.Enum(DRIFT_REASONS, {
      description:
        'pending: the difference is deposits waiting for their credit; uncredited: money arrived that no deposit explains (an asset the address ' +
        'was not handed out for, an internal transfer); missing: money left the address, which the service never does (the offline key, or a stolen one).',
    }),
  },
  { title: 'DriftingAddress' },
);

export const ReconciliationResult = Type.Object(
  {
    object: Type.Literal('reconciliation'),
    network: Type.String(),
    asset: Type.String(),
    status: Type.Enum(RECONCILIATION_STATUSES, {
      description: 'ok: on chain = ledger; surplus: more on chain (a funded hot wallet, fees kept); shortfall: less on chain than the owners are owed; unavailable: the chain could not be read.',
    }),
    on_chain_total: NullableAmount('Deposit addresses plus the hot wallet.'),
    ledger_total: Amount("The owners' available and reserved funds, live, less broadcast payouts (ledger.in_flight)."),
    drift: NullableAmount('on_chain_total − ledger_total.'),
    ledger: Type.Object({
      available: Amount('Every live owner’s available funds.'),
      reserved: Amount('Funds reserved by payouts not settled.'),
      in_flight: Amount('Payouts broadcast and not confirmed: still reserved, possibly already gone from the hot wallet.'),
      total: Amount('available + reserved − in_flight.'),
    }),
    deposit_addresses: Type.Object({
      count: Type.Integer({ description: 'Live deposit addresses handed out on the network.' }),
      credited: Amount('Deposits credited to them.'),
      pending: Amount('Deposits seen, not credited yet.'),
      on_chain: NullableAmount('What they hold.'),
    }),
    hot_wallet: Type.Union([
      Type.Object({
        address: Type.String(),
        balance: NullableAmount('What the hot wallet holds.'),
        paid_out: Amount('Completed live payouts on the network, what left through it.'),
        in_flight: Amount('Payouts broadcast and not confirmed.'),
      }),
      Type.Null(),
    ], { description: 'Null when no payout signer is configured for the network.' }),
    addresses: Type.Array(DriftingAddress, { description: 'Deposit addresses holding other than what was credited to them, largest difference first.' }),
    addresses_left_out: Type.Integer({ description: 'Drifting addresses beyond the first 500, not listed.' }),
    error: Nullable(Type.String({ description: 'Why the chain could not be read (status unavailable), the endpoint left out.' })),
    checked_at: Timestamp,
    reconciled_at: Type.Union([Timestamp, Type.Null()], { description: 'When the chain was last read for this pair; kept while it is unavailable. Null: never read.' }),
  },
  { title: 'Reconciliation' },
);

const ReconciliationList = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(ReconciliationResult, { description: 'One per live network and asset, by network and asset.' }),
    ok: Type.Boolean({ description: 'False when any pair is in shortfall: what `connect-payments reconcile` exits 1 on.' }),
  },
  { title: 'ReconciliationList' },
);

const NetworkQuery = Type.Object({ network: Type.Optional(CodeText('Only this live network.')) });

function presentReconciliation(row: ReconciliationRow): Static<typeof ReconciliationResult> {
  return {
    object: 'reconciliation',
    network: row.network,
    asset: row.asset,
    status: row.status,
    on_chain_total: row.onchain_total,
    ledger_total: row.ledger_total,
    drift: row.drift,
    ...row.details,
    error: row.error,
    checked_at: iso(row.checked_at),
    reconciled_at: isoOrNull(row.reconciled_at),
  };
}

const presentList = (rows: ReconciliationRow[]): Static<typeof ReconciliationList> => ({
  object: 'list',
  data: rows.map(presentReconciliation),
  ok: rows.every((row) => row.status !== 'shortfall'),
});

export function adminReconciliationRoutes(app: App, { reconciliation }: AppContext): void {
  app.get(
    '/reconciliation',
    {
      schema: {
        summary: 'The latest reconciliation of the live chains against the ledger',
        description:
          'Per live network and asset, the latest stored result (of the periodic job, every `CONNECT_RECONCILE_INTERVAL_SECONDS`, or of ' +
          '`POST /reconciliation`): the balances of every deposit address handed out and of the hot wallet against what the ledger owes the ' +
          'owners, the drift, and the addresses whose balance is not what was credited to them. Empty before the first run. See docs/reconciliation.md.',
        tags,
        querystring: NetworkQuery,
        response: { 200: ReconciliationList, ...errorResponses(400, 401) },
      },
    },
    async (request) => presentList(await reconciliation.latest(request.query.network)),
  );

  app.post(
    '/reconciliation',
    {
      schema: {
        summary: 'Reconcile the live chains against the ledger now',
        description:
          'Reads the balances of every live network (or `network`) now, compares them with the ledger, stores and answers the results, as ' +
          '`GET /reconciliation` shows them. A network whose node does not answer (or serves another chain) is `unavailable`, never a drift. ' +
          '`connect-payments reconcile` calls this. See docs/reconciliation.md.',
        tags,
        querystring: NetworkQuery,
        response: { 200: ReconciliationList, ...errorResponses(400, 401) },
      },
    },
    async (request) => presentList(await reconciliation.run(request.query.network)),
  );
}

export type ReconciliationAnswer = Static<typeof ReconciliationList>;
