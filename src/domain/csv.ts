/**
 * CSV as RFC 4180 writes it: fields joined by commas, lines ended by CRLF, a field quoted (its quotes doubled) when
 * it holds a comma, a quote, CR or LF.
 */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A spreadsheet runs a cell starting with one of these as a formula (CSV injection): text that came from a
 * partner, a payer or a chain is prefixed with an apostrophe, which spreadsheets show as text. Numbers are
 * written by the service and never guarded, so a negative amount stays a number.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvCell = { text: string } | { number: string } | null;

export const text = (value: string | null | undefined): CsvCell => (value === null || value === undefined ? null : { text: value });
export const number = (value: string | null | undefined): CsvCell => (value === null || value === undefined ? null : { number: value });

function field(cell: CsvCell): string {
  if (cell === null) return '';
  const raw = 'number' in cell ? cell.number : FORMULA_START.test(cell.text) ? `'${cell.text}` : cell.text;
  return NEEDS_QUOTES.test(raw) ? `"${raw.replaceAll('"', '""')}"` : raw;
}

export const csvLine = (cells: readonly CsvCell[]): string => `${cells.map(field).join(',')}\r\n`;
