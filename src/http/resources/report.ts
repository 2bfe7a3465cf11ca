import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import { DomainError } from '../../domain/errors.js';
import { MAX_REPORT_DAYS, REPORT_FORMATS, type ReportFormat } from '../../domain/reports.js';
import type { ReportRequest, ReportStream } from '../../use-cases/transaction-reports.js';
import { isBareDate, parseBound } from '../query.js';
import { ExternalRefText, Nullable, RequestText, Timestamp, Uuid } from '../schemas.js';

export const ReportQuery = Type.Object({
  from: RequestText(40, { description: 'Inclusive start: an ISO 8601 date (its 00:00) or date-time; UTC when no zone is given.' }),
  to: RequestText(40, {
    description: `Exclusive end: a date-time, or a date, which includes that whole day. At most ${MAX_REPORT_DAYS} days after from.`,
  }),
  external_ref: Type.Optional(ExternalRefText('One end user’s statement; omitted: the organization and every profile. An unknown ref gives an empty statement.')),
  format: Type.Optional(Type.Enum(REPORT_FORMATS, { description: 'csv or json; omitted: text/csv in Accept gives CSV, anything else JSON.' })),
  fiat: Type.Optional(RequestText(200, { description: 'Comma-separated fiat codes to value movements in (usd,eur); omitted: every fiat of the catalog.' })),
});

const BalanceLine = Type.Object({ asset: Type.String(), network: Type.String(), amount: Type.String({ description: 'Decimal string.' }) });
const FiatValues = (description: string) => Type.Record(Type.String(), Nullable(Type.String()), { description });

const Movement = Type.Object(
  {
    object: Type.Literal('movement'),
    id: Type.String({ description: 'The ledger transfer.' }),
    occurred_at: Timestamp,
    type: Type.String({ description: 'deposit, payout, refund, deposit_reversal, adjustment.' }),
    status: Nullable(Type.String({ description: 'The ledger row’s status now.' })),
    asset: Type.String(),
    network: Type.String(),
    amount: Type.String({ description: 'Signed decimal string: what the owner’s holding changed by.' }),
    fee: Nullable(Type.String({ description: 'The network fee included in a payout’s or refund’s amount.' })),
    counterparty_address: Nullable(Type.String()),
    tx_hash: Nullable(Type.String()),
    transaction_id: Nullable(Uuid),
    payment_intent_id: Nullable(Uuid),
    payout_id: Nullable(Uuid),
    refund_id: Nullable(Uuid),
    external_ref: Nullable(Type.String()),
    metadata: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'The intent’s metadata, for its deposits.' })),
    price_at: Nullable(Timestamp),
    values: FiatValues('Lowercase fiat → the signed value at the stored price; null when the movement was not priced.'),
    unit_prices: FiatValues('Lowercase fiat → the stored price of one unit of the asset.'),
  },
  { title: 'Movement' },
);

export const TransactionReport = Type.Object(
  {
    object: Type.Literal('report'),
    type: Type.Literal('transactions'),
    from: Timestamp,
    to: Timestamp,
    external_ref: Nullable(Type.String()),
    fiats: Type.Array(Type.String()),
    opening_balances: Type.Array(BalanceLine),
    movements: Type.Array(Movement),
    closing_balances: Type.Array(BalanceLine),
  },
  { title: 'TransactionReport' },
);

/** The half-open range: `to` as a date means the end of that day, so consecutive statements neither overlap nor leave gaps. */
function reportRange(from: string, to: string): { from: Date; to: Date } {
  const end = parseBound(to, 'to', 'upper')!;
  return { from: parseBound(from, 'from', 'lower')!, to: isBareDate(to) ? new Date(end.getTime() + 1) : end };
}

/** The `format` parameter, else the Accept header: a client that asks for text/csv gets it. */
function formatOf(format: ReportFormat | undefined, accept: string | undefined): ReportFormat {
  return format ?? (accept !== undefined && /(^|,)\s*text\/csv\b/i.test(accept) ? 'csv' : 'json');
}

export function reportRequest(query: Static<typeof ReportQuery>, accept: string | undefined): ReportRequest {
  const fiats = query.fiat?.split(',').map((code) => code.trim());
  if (fiats?.some((code) => code === '')) throw new DomainError('invalid_request', 'fiat lists fiat codes separated by commas.', 'fiat');
  return {
    ...reportRange(query.from, query.to),
    ...(query.external_ref === undefined ? {} : { externalRef: query.external_ref }),
    format: formatOf(query.format, accept),
    ...(fiats === undefined ? {} : { fiats }),
  };
}

/**
 * Writes a statement as it is read: a page of movements per chunk, under the stream's backpressure. Errors in the
 * request are thrown before the first byte (by the use case that opens it); a CSV arrives as a download
 * (Content-Disposition).
 */
export function sendReport(reply: FastifyReply, report: ReportStream, format: ReportFormat): FastifyReply {
  reply.type(report.contentType).header('cache-control', 'no-store');
  if (format === 'csv') reply.header('content-disposition', `attachment; filename="${report.filename}"`);
  return reply.send(Readable.from(report.chunks));
}
