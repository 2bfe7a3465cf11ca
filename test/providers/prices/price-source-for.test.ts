import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { Catalog } from '../../../src/domain/catalog.js';
import { HttpPriceSource, priceSourceFor, TablePriceSource } from '../../../src/providers/prices/index.js';
import { ManualClock } from '../../support/clock.js';

const catalog = Catalog.load();

describe('priceSourceFor', () => {
  it('is the fixed rate sheet when no feed URL is set', () => {
    expect(priceSourceFor(loadConfig({}), new ManualClock(), catalog)).toBeInstanceOf(TablePriceSource);
  });

  it('is the HTTP feed when CONNECT_PRICES_URL is set', () => {
    const config = loadConfig({ CONNECT_PRICES_URL: 'http://127.0.0.1:1/prices' });
    expect(priceSourceFor(config, new ManualClock(), catalog)).toBeInstanceOf(HttpPriceSource);
  });

  it('refuses a missing rate sheet file at start', () => {
    const config = loadConfig({ CONNECT_PRICES_FILE: '/nonexistent/prices.json' });
    expect(() => priceSourceFor(config, new ManualClock(), catalog)).toThrow(/\/nonexistent\/prices.json/);
  });
});
