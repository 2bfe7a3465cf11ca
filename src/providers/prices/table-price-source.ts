import fs from 'node:fs';
import type { Catalog } from '../../domain/catalog.js';
import type { Clock } from '../../domain/clock.js';
import { catalogCoverageProblems, priceSheetProblems, snapshotOf, type PriceSheet } from './price-sheet.js';
import type { PriceSnapshot, PriceSource } from './price-source.js';

const DEFAULT_PRICES = new URL('./prices.json', import.meta.url);

/**
 * A fixed rate sheet: the shipped `prices.json` or CONNECT_PRICES_FILE. Its rates are the deployment's rates
 * by decision, not quotes that age, so a table is always current: every call answers it dated by the clock's
 * now, and valuations on it never go stale. Deployments that need market prices set CONNECT_PRICES_URL.
 * Checked at load: the schema, and a price for every catalog asset and a rate for every catalog fiat.
 */
export class TablePriceSource implements PriceSource {
  private constructor(
    private readonly sheet: PriceSheet,
    private readonly clock: Clock,
  ) {}

  static load(file: string | undefined, catalog: Catalog, clock: Clock): TablePriceSource {
    const name = file ?? 'prices.json';
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file ?? DEFAULT_PRICES, 'utf8'));
    } catch (error) {
      if (error instanceof SyntaxError) throw new Error(`Invalid prices file ${name}: not JSON (${error.message})`, { cause: error });
      throw error;
    }
    const problems = priceSheetProblems(raw);
    if (problems.length === 0) problems.push(...catalogCoverageProblems(raw as PriceSheet, catalog));
    if (problems.length > 0) throw new Error(`Invalid prices file ${name}: ${problems.join('; ')}`);
    return new TablePriceSource(raw as PriceSheet, clock);
  }

  async current(): Promise<PriceSnapshot> {
    return snapshotOf(this.sheet, this.clock.now());
  }
}
