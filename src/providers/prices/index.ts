import type { Config } from '../../config.js';
import type { Catalog } from '../../domain/catalog.js';
import type { Clock } from '../../domain/clock.js';
import { HttpPriceSource } from './http-price-source.js';
import type { PriceSource } from './price-source.js';
import { TablePriceSource } from './table-price-source.js';

export type { PriceSnapshot, PriceSource } from './price-source.js';
export { HttpPriceSource, type PriceFeedFailure } from './http-price-source.js';
export { TablePriceSource } from './table-price-source.js';

type PriceSettings = Pick<Config, 'pricesFile' | 'pricesUrl' | 'pricesTimeoutMs' | 'pricesCacheSeconds'>;

/**
 * The price feed when CONNECT_PRICES_URL is set, the fixed rate sheet otherwise. The sheet is checked against
 * the catalog here, so a deployment without a feed refuses to start on a sheet that cannot value its assets.
 */
export function priceSourceFor(config: PriceSettings, clock: Clock, catalog: Catalog): PriceSource {
  if (config.pricesUrl !== undefined) {
    return new HttpPriceSource({ url: config.pricesUrl, timeoutMs: config.pricesTimeoutMs, cacheSeconds: config.pricesCacheSeconds, clock });
  }
  return TablePriceSource.load(config.pricesFile, catalog, clock);
}
