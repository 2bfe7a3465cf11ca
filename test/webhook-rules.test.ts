import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, retryDelaySeconds, verdictFor } from '../src/domain/webhooks.js';

describe('retry schedule', () => {
  it('the default is Standard Webhooks’ suggestion: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    expect(loadConfig({}).webhookRetrySchedule).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
    expect(DEFAULT_RETRY_SCHEDULE).toHaveLength(10);
  });

  it('after attempt n the next one waits schedule[n] with ±10 % jitter; past the end there is none (dead)', () => {
    expect(retryDelaySeconds([0, 5, 300], 1, () => 0)).toBeCloseTo(4.5);
    expect(retryDelaySeconds([0, 5, 300], 1, () => 1)).toBeCloseTo(5.5);
    expect(retryDelaySeconds([0, 5, 300], 2, () => 0.5)).toBeCloseTo(300);
    expect(retryDelaySeconds([0, 5, 300], 3)).toBeNull();
  });

  it('CONNECT_WEBHOOK_RETRY_SCHEDULE is comma-separated whole seconds; anything else stops the start', () => {
    expect(loadConfig({ CONNECT_WEBHOOK_RETRY_SCHEDULE: '0,1,2' }).webhookRetrySchedule).toEqual([0, 1, 2]);
    expect(parseRetrySchedule(' 0, 10 ')).toEqual([0, 10]);
    for (const bad of ['', '0,,1', '1.5', '-1', 'soon']) expect(() => parseRetrySchedule(bad)).toThrow(/CONNECT_WEBHOOK_RETRY_SCHEDULE/);
  });

  it('the lease must outlast the timeout, or a second worker could send a delivery still in flight', () => {
    expect(() => loadConfig({ CONNECT_WEBHOOK_TIMEOUT_MS: '10000', CONNECT_WEBHOOK_LEASE_SECONDS: '10' })).toThrow(/LEASE/);
    expect(loadConfig({ CONNECT_WEBHOOK_TIMEOUT_MS: '1000', CONNECT_WEBHOOK_LEASE_SECONDS: '3' }).webhookLeaseSeconds).toBe(3);
  });
});

describe('what an answer means', () => {
  it('any 2xx is delivered; 410 is gone (no more attempts); 1xx, 3xx, other 4xx and 5xx are retried', () => {
    for (const status of [200, 201, 204, 299]) expect(verdictFor(status)).toBe('delivered');
    expect(verdictFor(410)).toBe('gone');
    for (const status of [100, 301, 302, 400, 404, 429, 500, 503]) expect(verdictFor(status)).toBe('retry');
  });
});
