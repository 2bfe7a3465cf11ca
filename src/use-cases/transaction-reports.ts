import type { Catalog } from '../domain/catalog.js';
import { csvLine, number, text, type CsvCell } from '../domain/csv.js';
import { externalRefFilter } from '../domain/identifiers.js';
import { DomainError } from '../domain/errors.js';
import { Decimal } from '../domain/money.js';
import { MAX_REPORT_DAYS, type ReportFormat } from '../domain/reports.js';
import { valueAt } from '../domain/unit-prices.js';
import type { Sql } from '../store/database.js';
import { findProfileId } from '../store/profiles.js';
import { movementsPage, openingBalances, type MovementRow, type StatementOwner } from '../store/statements.js';
import type { Tenant } from '../domain/tenancy.js';

type FiatCurrency = Catalog['data']['fiat_currencies'][number];

const DAY_MS = 86_400_000;
/** Ledger transfers read per statement: what a report holds in memory at once, whatever its length. */
const REPORT_PAGE_ROWS = 1000;

export interface ReportRequest {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  /** One end user; absent: the whole tenant (the organization and every profile). */
  externalRef?: string;
  format: ReportFormat;
  /** Catalog fiat codes to value movements in; absent: every fiat of the catalog. */
  fiats?: string[];
}

/** A statement ready to be written: what to call it, and its text, produced a page of movements at a time. */
export interface ReportStream {
  contentType: string;
  filename: string;
  chunks: AsyncIterable<string>;
}

/** A movement as the statement shows it, in both formats. */
interface Movement {
  id: string;
  occurred_at: string;
  type: string;
  status: string | null;
  asset: string;
  network: string;
  amount: string;
  fee: string | null;
  counterparty_address: string | null;
  tx_hash: string | null;
  transaction_id: string | null;
  payment_intent_id: string | null;
  payout_id: string | null;
  refund_id: string | null;
  external_ref: string | null;
  metadata: Record<string, unknown> | null;
  price_at: string | null;
  /** Lowercase fiat code → the movement's signed value at the stored price; null when it was not priced. */
  values: Record<string, string | null>;
  /** Lowercase fiat code → the stored price of one unit. */
  unit_prices: Record<string, string | null>;
}

interface BalanceLine {
  asset: string;
  network: string;
  amount: string;
}

const pairKey = (asset: string, network: string) => `${asset}\u0000${network}`;

/**
 * A movement's kind: its ledger row's type (deposit, payout, refund), `…_reversal` for the transfer that takes a
 * credit back, `adjustment` for a transfer no partner-visible row carries.
 */
function kindOf(row: MovementRow): string {
  const type = row.type ?? 'adjustment';
  return row.cause.endsWith(':reversal') ? `${type}_reversal` : type;
}

function present(row: MovementRow, fiats: readonly FiatCurrency[]): Movement {
  const amount = new Decimal(row.amount);
  const values: Record<string, string | null> = {};
  const unitPrices: Record<string, string | null> = {};
  for (const fiat of fiats) {
    values[fiat.code.toLowerCase()] = valueAt(amount, row.unit_prices, fiat);
    unitPrices[fiat.code.toLowerCase()] = row.unit_prices?.fiat[fiat.code] ?? null;
  }
  const outgoing = row.type === 'payout' || row.type === 'refund';
  return {
    id: row.id,
    occurred_at: row.created_at.toISOString(),
    type: kindOf(row),
    status: row.status,
    asset: row.asset,
    network: row.network,
    amount: amount.toFixed(),
    fee: row.fee === null ? null : new Decimal(row.fee).toFixed(),
    counterparty_address: outgoing ? row.to_address : row.from_address,
    tx_hash: row.tx_hash,
    transaction_id: row.transaction_id,
    payment_intent_id: row.payment_intent_id ?? row.refunded_intent_id,
    payout_id: row.type === 'payout' ? row.payout_id : null,
    refund_id: row.type === 'refund' ? row.payout_id : null,
    external_ref: row.external_ref,
    metadata: row.intent_metadata,
    price_at: row.unit_prices?.at ?? null,
    values,
    unit_prices: unitPrices,
  };
}

/** The statement's text in one format: its opening, one piece per page of movements, its closing. */
interface Writer {
  start(opening: BalanceLine[]): string;
  movements(rows: Movement[], first: boolean): string;
  end(closing: BalanceLine[]): string;
}

function csvWriter(request: ReportRequest, fiats: readonly FiatCurrency[]): Writer {
  const fiatColumns = fiats.flatMap((f) => [`value_${f.code.toLowerCase()}`, `unit_price_${f.code.toLowerCase()}`]);
  const header = [
    'line', 'occurred_at', 'movement_id', 'type', 'status', 'asset', 'network', 'amount', 'fee', 'counterparty_address', 'tx_hash',
    'transaction_id', 'payment_intent_id', 'payout_id', 'refund_id', 'external_ref', 'metadata', 'price_at', ...fiatColumns,
  ];
  const blanks = (n: number): CsvCell[] => Array.from({ length: n }, () => null);
  const balance = (line: string, at: Date) => (b: BalanceLine) =>
    csvLine([text(line), text(at.toISOString()), null, null, null, text(b.asset), text(b.network), number(b.amount), ...blanks(header.length - 8)]);
  return {
    start: (opening) => csvLine(header.map(text)) + opening.map(balance('opening_balance', request.from)).join(''),
    movements: (rows) =>
      rows
        .map((m) =>
          csvLine([
            text('movement'), text(m.occurred_at), text(m.id), text(m.type), text(m.status), text(m.asset), text(m.network), number(m.amount),
            number(m.fee), text(m.counterparty_address), text(m.tx_hash), text(m.transaction_id), text(m.payment_intent_id), text(m.payout_id),
            text(m.refund_id), text(m.external_ref), text(m.metadata === null ? null : JSON.stringify(m.metadata)), text(m.price_at),
            ...fiats.flatMap((f) => [number(m.values[f.code.toLowerCase()]), number(m.unit_prices[f.code.toLowerCase()])]),
          ]),
        )
        .join(''),
    end: (closing) => closing.map(balance('closing_balance', request.to)).join(''),
  };
}

function jsonWriter(request: ReportRequest, fiats: readonly FiatCurrency[]): Writer {
  return {
    start: (opening) =>
      `{"object":"report","type":"transactions","from":${JSON.stringify(request.from.toISOString())},"to":${JSON.stringify(request.to.toISOString())},` +
      `"external_ref":${JSON.stringify(request.externalRef ?? null)},"fiats":${JSON.stringify(fiats.map((f) => f.code.toLowerCase()))},` +
      `"opening_balances":${JSON.stringify(opening)},"movements":[`,
    movements: (rows, first) => (first ? '' : ',') + rows.map((m) => JSON.stringify({ object: 'movement', ...m })).join(','),
    end: (closing) => `],"closing_balances":${JSON.stringify(closing)}}\n`,
  };
}

/** A statement's file name: the tenant's mode, the owner and the range, in characters any file system takes. */
function filename(tenant: Tenant, request: ReportRequest): string {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const who = request.externalRef === undefined ? 'organization' : `ref-${request.externalRef.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64)}`;
  return `statement-${tenant.mode}-${who}-${day(request.from)}-${day(new Date(request.to.getTime() - 1))}.${request.format}`;
}

/**
 * Statements partners can book (docs/reports.md): every movement of the owner's holding (available + reserved,
 * from the ledger's postings) in [from, to), valued at the prices stored with each ledger row, between the
 * opening and closing balances per asset and network. The closing is the opening plus the movements written, so
 * the document always adds up; the ledger's own balances agree with it (the tests compare them).
 */
export class TransactionReports {
  constructor(
    private readonly catalog: Catalog,
    private readonly pageRows = REPORT_PAGE_ROWS,
  ) {}

  /** Checks the request (errors are thrown before anything is written) and answers the statement to stream. */
  async open(sql: Sql, tenant: Tenant, asked: ReportRequest): Promise<ReportStream> {
    // The statement names the ref as stored (NFC), whatever form it was asked in.
    const externalRef = externalRefFilter(asked.externalRef);
    const request = { ...asked, externalRef };
    if (request.to.getTime() <= request.from.getTime()) throw new DomainError('invalid_request', 'to must be after from.', 'to');
    if (request.to.getTime() - request.from.getTime() > MAX_REPORT_DAYS * DAY_MS) {
      throw new DomainError('invalid_request', `A statement covers at most ${MAX_REPORT_DAYS} days; split the range.`, 'to');
    }
    const fiats = this.fiatsOf(request.fiats);
    // An external_ref never used is an end user who holds nothing: an empty statement, never a 404.
    const profileId = externalRef === undefined ? undefined : await findProfileId(sql, tenant.organizationId, tenant.mode, externalRef);
    const writer = request.format === 'csv' ? csvWriter(request, fiats) : jsonWriter(request, fiats);
    return {
      contentType: request.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
      filename: filename(tenant, request),
      chunks: profileId === null ? emptyStatement(writer) : statement(sql, { tenant, profileId }, request, fiats, writer, this.pageRows),
    };
  }

  private fiatsOf(codes: string[] | undefined): FiatCurrency[] {
    const all = this.catalog.data.fiat_currencies;
    if (codes === undefined) return all;
    return codes.map((code) => {
      const fiat = all.find((f) => f.code === code.toUpperCase());
      if (!fiat) throw new DomainError('invalid_request', `Unknown fiat "${code}". Allowed: ${all.map((f) => f.code.toLowerCase()).join(', ')}.`, 'fiat');
      return fiat;
    });
  }
}

async function* emptyStatement(writer: Writer): AsyncIterable<string> {
  yield writer.start([]);
  yield writer.end([]);
}

async function* statement(
  sql: Sql,
  owner: StatementOwner,
  request: ReportRequest,
  fiats: readonly FiatCurrency[],
  writer: Writer,
  pageRows: number,
): AsyncIterable<string> {
  const range = { from: request.from, to: request.to };
  const opening = await openingBalances(sql, owner, range.from, range.to);
  const held = new Map(opening.map((line) => [pairKey(line.asset, line.network), { asset: line.asset, network: line.network, amount: new Decimal(line.opening) }]));
  yield writer.start(opening.map((line) => ({ asset: line.asset, network: line.network, amount: new Decimal(line.opening).toFixed() })));
  let after: { createdAt: Date; id: string } | null = null;
  let first = true;
  for (;;) {
    const page = await movementsPage(sql, owner, range, after, pageRows);
    for (const row of page.movements) {
      const key = pairKey(row.asset, row.network);
      const line = held.get(key) ?? { asset: row.asset, network: row.network, amount: new Decimal(0) };
      held.set(key, { ...line, amount: line.amount.plus(row.amount) });
    }
    if (page.movements.length > 0) {
      yield writer.movements(page.movements.map((row) => present(row, fiats)), first);
      first = false;
    }
    if (page.scanned < pageRows) break;
    after = page.last;
  }
  const closing = [...held.values()]
    .sort((a, b) => (a.asset === b.asset ? a.network.localeCompare(b.network) : a.asset.localeCompare(b.asset)))
    .map((line) => ({ asset: line.asset, network: line.network, amount: line.amount.toFixed() }));
  yield writer.end(closing);
}
