import { Type, type Static } from 'typebox';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { ListEnvelope, PageQuery } from '../../http/pagination.js';
import { CodeText, errorResponses, iso, Timestamp, Uuid } from '../../http/schemas.js';
import { listQuarantinedDeposits, QUARANTINE_LIST, type QuarantinedDepositRow } from '../../use-cases/deposit-quarantine.js';
import { KeyMode } from './schemas.js';

export const QuarantinedDeposit = Type.Object(
  {
    object: Type.Literal('quarantined_deposit'),
    transaction_id: Uuid,
    organization_id: Uuid,
    mode: KeyMode,
    address_id: Uuid,
    network: Type.String(),
    asset: Type.String(),
    amount: Type.String({ description: 'Decimal string, in the asset.' }),
    tx_hash: Type.String(),
    output_index: Type.Integer({ description: 'The log index of a token transfer; 0 for a native one.' }),
    block_number: Type.Integer(),
    credit_attempts: Type.Integer({ description: 'Credits tried and failed so far.' }),
    last_error: Type.String({ description: "The last failure's message (URLs taken out)." }),
    quarantined_at: Timestamp,
    next_attempt_at: Timestamp,
  },
  { title: 'QuarantinedDeposit' },
);

function presentQuarantinedDeposit(row: QuarantinedDepositRow): Static<typeof QuarantinedDeposit> {
  return {
    object: 'quarantined_deposit',
    transaction_id: row.id,
    organization_id: row.organization_id,
    mode: row.mode,
    address_id: row.address_id,
    network: row.network,
    asset: row.asset,
    amount: row.amount,
    tx_hash: row.tx_hash,
    output_index: row.output_index,
    block_number: Number(row.block_number),
    credit_attempts: row.credit_attempts,
    last_error: row.last_error,
    quarantined_at: iso(row.created_at),
    next_attempt_at: iso(row.next_attempt_at),
  };
}

export function adminDepositRoutes(app: App, { db, cursors }: AppContext): void {
  app.get(
    '/deposits/quarantined',
    {
      schema: {
        summary: 'List the deposits whose credit failed, newest first',
        description:
          'Chain deposits with their confirmations whose credit threw: each stays pending (its `transaction_id` row in the ' +
          "organization's transactions) and the chain watcher tries it again at `next_attempt_at`, on a growing schedule, while the " +
          'other deposits of its network are credited. `quarantined_at` is the first failure, `last_error` the last one (URLs taken out). ' +
          'Empty when every confirmed deposit was credited. See docs/live-evm.md.',
        tags: ['operator'],
        querystring: Type.Object({ network: Type.Optional(CodeText('Only the deposits of this network.')), ...PageQuery }),
        response: { 200: ListEnvelope(QuarantinedDeposit), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const page = await listQuarantinedDeposits(db, request.query.network, cursors.pageRequest(QUARANTINE_LIST, request.query));
      return cursors.envelope(QUARANTINE_LIST, page, presentQuarantinedDeposit);
    },
  );
}
