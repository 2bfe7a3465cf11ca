import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startTestApp } from './support/app.js';

describe('each network has its own payout sweep interval', () => {
  it('CONNECT_PAYOUT_SWEEP_SECONDS sets every network, defaulting to CONNECT_EVM_POLL_SECONDS as before; CONNECT_PAYOUT_SWEEP_SECONDS_<NETWORK> one network', () => {
    expect(loadConfig({}).livePayouts).toMatchObject({ sweepSeconds: 5, sweepSecondsByNetwork: {} });
    expect(loadConfig({ CONNECT_EVM_POLL_SECONDS: '3' }).livePayouts.sweepSeconds).toBe(3);
    const config = loadConfig({ CONNECT_EVM_POLL_SECONDS: '3', CONNECT_PAYOUT_SWEEP_SECONDS: '7', CONNECT_PAYOUT_SWEEP_SECONDS_TRON: '2', CONNECT_PAYOUT_SWEEP_SECONDS_BASE_SEPOLIA: '11' });
    expect(config.livePayouts).toMatchObject({ sweepSeconds: 7, sweepSecondsByNetwork: { tron: 2, 'base-sepolia': 11 } });
  });

  it('a value that is not a positive whole number of seconds is refused at start, naming the variable', () => {
    expect(() => loadConfig({ CONNECT_PAYOUT_SWEEP_SECONDS: '0' })).toThrow(/CONNECT_PAYOUT_SWEEP_SECONDS must be at least 1/);
    expect(() => loadConfig({ CONNECT_PAYOUT_SWEEP_SECONDS_SOLANA: '0' })).toThrow(/CONNECT_PAYOUT_SWEEP_SECONDS_SOLANA must be at least 1/);
    expect(() => loadConfig({ CONNECT_PAYOUT_SWEEP_SECONDS_TRON: 'often' })).toThrow(/CONNECT_PAYOUT_SWEEP_SECONDS_TRON must be a non-negative integer/);
  });

  it("the outbound engine sweeps a network at its own interval, the others at the common one; a network the catalog lacks is refused at start", async () => {
    const livePayouts = { ...loadConfig({}).livePayouts, sweepSeconds: 9, sweepSecondsByNetwork: { tron: 2 } };
    const t = await startTestApp({ livePayouts });
    try {
      expect(t.ctx.outbound.sweepSeconds('tron')).toBe(2);
      expect(t.ctx.outbound.sweepSeconds('ethereum')).toBe(9);
      await expect(startTestApp({ livePayouts: { ...livePayouts, sweepSecondsByNetwork: { dogecoin: 2 } } }, t.testDb)).rejects.toThrow(
        'CONNECT_PAYOUT_SWEEP_SECONDS_DOGECOIN names dogecoin, which is not a network of the catalog',
      );
    } finally {
      await t.close();
    }
  });
});
