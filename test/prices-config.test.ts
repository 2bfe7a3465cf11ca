import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('price and network-fee settings', () => {
  it('default to the shipped tables, a 2 s timeout, a 30 s cache and 300 s freshness', () => {
    const config = loadConfig({});
    expect(config.pricesFile).toBeUndefined();
    expect(config.pricesUrl).toBeUndefined();
    expect(config.pricesTimeoutMs).toBe(2000);
    expect(config.pricesCacheSeconds).toBe(30);
    expect(config.pricesMaxAgeSeconds).toBe(300);
    expect(config.networkFeesFile).toBeUndefined();
  });

  it('are read from the environment', () => {
    const config = loadConfig({
      CONNECT_PRICES_FILE: '/etc/connect/prices.json',
      CONNECT_PRICES_URL: 'https://prices.example.com/v1/sheet',
      CONNECT_PRICES_TIMEOUT_MS: '500',
      CONNECT_PRICES_CACHE_SECONDS: '10',
      CONNECT_PRICES_MAX_AGE_SECONDS: '60',
      CONNECT_NETWORK_FEES_FILE: '/etc/connect/fees.json',
    });
    expect(config).toMatchObject({
      pricesFile: '/etc/connect/prices.json',
      pricesUrl: 'https://prices.example.com/v1/sheet',
      pricesTimeoutMs: 500,
      pricesCacheSeconds: 10,
      pricesMaxAgeSeconds: 60,
      networkFeesFile: '/etc/connect/fees.json',
    });
  });

  it.each([
    [{ CONNECT_PRICES_URL: 'prices.example.com' }, /CONNECT_PRICES_URL must be an http\(s\) URL/],
    [{ CONNECT_PRICES_URL: 'file:///etc/passwd' }, /CONNECT_PRICES_URL must be an http\(s\) URL/],
    [{ CONNECT_PRICES_TIMEOUT_MS: '0' }, /CONNECT_PRICES_TIMEOUT_MS must be at least 1/],
    [{ CONNECT_PRICES_TIMEOUT_MS: '1.5' }, /CONNECT_PRICES_TIMEOUT_MS must be a non-negative integer/],
    [{ CONNECT_PRICES_CACHE_SECONDS: '300' }, /CONNECT_PRICES_CACHE_SECONDS \(300\) must be less than CONNECT_PRICES_MAX_AGE_SECONDS \(300\)/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
