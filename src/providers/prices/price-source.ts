import type { PriceSnapshot } from '../../domain/price-snapshot.js';

export type { PriceSnapshot } from '../../domain/price-snapshot.js';

/** Where spot prices come from: a fixed rate sheet or a price feed (`priceSourceFor`). */
export interface PriceSource {
  /** The newest prices this source has; null when it has none at all (a feed that never answered). */
  current(): Promise<PriceSnapshot | null>;
}
