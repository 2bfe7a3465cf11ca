import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../src/domain/catalog.js';
import { TreasuryPolicy } from '../src/domain/treasury-policy.js';
import { isValidDestination } from '../src/providers/chains/address-codecs.js';
import { startTestApp } from './support/app.js';
import { openTestDatabase } from './support/database.js';

const catalog = Catalog.load();
const COLD = '0x000000000000000000000000000000000000c01d';
const usdc = { float_target: '20000', float_low: '5000', float_high: '50000', min_sweep: '25', max_cost_share: '0.01' };

const parse = (raw: unknown) => TreasuryPolicy.parse(raw, catalog, isValidDestination);

describe('treasury policy (docs/treasury.md, "The policy")', () => {
  it('reads each network and asset the operator names, with amounts exact', () => {
    const policy = parse({ ethereum: { sweep_every_seconds: 900, assets: { USDC: { ...usdc, cold_address: COLD } } } });
    expect(policy.network('ethereum')?.sweepEverySeconds).toBe(900);
    const asset = policy.asset('ethereum', 'USDC')!;
    expect([asset.floatLow, asset.floatTarget, asset.floatHigh, asset.minSweep, asset.maxCostShare].map(String)).toEqual(['5000', '20000', '50000', '25', '0.01']);
    expect(asset.coldAddress).toBe(COLD);
    expect(policy.asset('ethereum', 'USDT')).toBeUndefined();
    expect(policy.asset('tron', 'USDT')).toBeUndefined();
    // No bound on what a sweep may spend: the signer signs nothing on the network.
    expect(policy.network('ethereum')?.maxFeePerSweep).toBeNull();
    expect(parse({ ethereum: { sweep_every_seconds: 900, max_fee_per_sweep: '0.002', assets: {} } }).network('ethereum')?.maxFeePerSweep?.toFixed()).toBe('0.002');
  });

  it('no file is no policy: nothing is swept anywhere', () => {
    expect(TreasuryPolicy.load(undefined, catalog, isValidDestination).networks()).toEqual([]);
  });

  it('refuses a policy with mistakes, naming every one of them', () => {
    const wrong = {
      ethereum: {
        sweep_every_seconds: 900,
        max_fee_per_sweep: '0.0000000000000000001',
        max_fees_per_day: '0',
        assets: {
          USDC: { ...usdc, float_low: '30000', min_sweep: '0', max_cost_share: '1.5', float_target: '20000.0000001', cold_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
          DOGE: usdc,
        },
      },
      atlantis: { sweep_every_seconds: 900, assets: {} },
    };
    expect(() => parse(wrong)).toThrow(
      [
        'Invalid treasury policy policy: ethereum/USDC: float_target has more than the asset\'s 6 decimals',
        'ethereum/USDC: float_low ≤ float_target ≤ float_high must hold',
        'ethereum/USDC: min_sweep must be above 0',
        'ethereum/USDC: max_cost_share must be above 0 and at most 1',
        'ethereum/USDC: cold_address is not a evm address',
        'ethereum/DOGE: not a catalog pair',
        "ethereum: max_fee_per_sweep has more than ETH's 18 decimals",
        'ethereum: max_fees_per_day is below max_fee_per_sweep',
        'atlantis: not a catalog network',
      ].join('; '),
    );
  });

  it('refuses a malformed file by its schema: unknown fields, amounts that are not decimal strings, a short interval', () => {
    expect(() => parse({ ethereum: { sweep_every_seconds: 5, assets: { USDC: { ...usdc, float_low: 5000, spare: true } } } })).toThrow(
      /^Invalid treasury policy policy: .*\/ethereum\/sweep_every_seconds.*\/ethereum\/assets\/USDC/,
    );
  });

  it('a file that is not JSON, or missing, refuses the start with its name', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'treasury-'));
    const file = path.join(dir, 'treasury.json');
    fs.writeFileSync(file, '{ "ethereum": ');
    expect(() => TreasuryPolicy.load(file, catalog, isValidDestination)).toThrow(`Invalid treasury policy ${file}: not JSON`);
    expect(() => TreasuryPolicy.load(path.join(dir, 'absent.json'), catalog, isValidDestination)).toThrow(`Cannot read the treasury policy ${path.join(dir, 'absent.json')}`);
  });

  it('the service refuses to start on a policy with a mistake, and reads a good one (CONNECT_TREASURY_FILE)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'treasury-'));
    const file = path.join(dir, 'treasury.json');
    fs.writeFileSync(file, JSON.stringify({ ethereum: { sweep_every_seconds: 900, assets: { USDC: { ...usdc, float_high: '10' } } } }));
    const database = await openTestDatabase();
    await expect(startTestApp({ treasuryFile: file }, database)).rejects.toThrow(`Invalid treasury policy ${file}: ethereum/USDC: float_low ≤ float_target ≤ float_high must hold`);
    fs.writeFileSync(file, JSON.stringify({ ethereum: { sweep_every_seconds: 900, assets: { USDC: usdc } } }));
    const t = await startTestApp({ treasuryFile: file }, database);
    expect(t.ctx.treasury.policy.asset('ethereum', 'USDC')?.floatTarget.toString()).toBe('20000');
    await t.close();
    await database.close();
  });
});
