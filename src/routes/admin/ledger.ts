import { Type } from 'typebox';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { errorResponses } from '../../http/schemas.js';
import { verifyLedger } from '../../use-cases/ledger.js';

/** What `connect-payments ledger verify` prints; the CLI exits 1 when `ok` is false. */
export const LedgerReport = Type.Object(
  {
    accounts: Type.Integer(),
    transfers: Type.Integer(),
    postings: Type.Integer(),
    account_mismatches: Type.Array(Type.Object({ id: Type.String(), balance: Type.String(), postings: Type.String() }), {
      description: 'Accounts whose running balance differs from the sum of their postings.',
    }),
    unbalanced_transfers: Type.Array(
      Type.Object({
        id: Type.String(),
        asset: Type.Union([Type.String(), Type.Null()]),
        sum: Type.Union([Type.String(), Type.Null()]),
        postings: Type.Integer(),
      }),
      { description: 'Transfers whose postings do not sum to zero for some asset, or that have fewer than two postings.' },
    ),
    tenant_total_mismatches: Type.Array(
      Type.Object({
        organization: Type.String(),
        mode: Type.String(),
        asset: Type.Union([Type.String(), Type.Null()]),
        network: Type.Union([Type.String(), Type.Null()]),
        quantity: Type.Union([Type.Literal('available'), Type.Literal('reserved'), Type.Literal('profiles')]),
        total: Type.String(),
        counted: Type.String(),
      }),
      {
        description:
          'Tenant-wide totals (what GET /connect/v1/balances answers without external_ref) that differ from the sum of the ' +
          "tenant's accounts (available, reserved; per asset and network) or from its number of profiles (asset and network null).",
      },
    ),
    ok: Type.Boolean({ description: 'True when the three lists are empty.' }),
  },
  { title: 'LedgerReport' },
);

export function adminLedgerRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/ledger/verification',
    {
      schema: {
        summary: 'Check the double-entry ledger',
        description:
          'Every running balance must equal the sum of its postings, every transfer must sum to zero per asset and every tenant-wide ' +
          'total must equal the sum of the tenant’s accounts, over every tenant. ' +
          'Answers 200 with the report whatever it finds; `ok` says whether the ledger adds up.',
        tags: ['operator'],
        response: { 200: LedgerReport, ...errorResponses(401) },
      },
    },
    async () => {
      const { accountMismatches, unbalancedTransfers, tenantTotalMismatches, ...report } = await verifyLedger(db);
      return { ...report, account_mismatches: accountMismatches, unbalanced_transfers: unbalancedTransfers, tenant_total_mismatches: tenantTotalMismatches };
    },
  );
}
