import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { cliOn } from './support/cli.js';
import { ManualClock } from './support/clock.js';

const COLD = '0x000000000000000000000000000000000000c01d';
const policy = {
  ethereum: {
    sweep_every_seconds: 900,
    max_fee_per_sweep: '0.002',
    max_fees_per_day: '0.5',
    assets: { USDC: { float_target: '20000', float_low: '5000', float_high: '50000', cold_address: COLD, min_sweep: '25', max_cost_share: '0.01' } },
  },
  tron: { sweep_every_seconds: 600, assets: { USDT: { float_target: '1000.5', float_low: '100', float_high: '2000', min_sweep: '10', max_cost_share: '0.05' } } },
};

let t: TestApp;
const clock = new ManualClock(new Date('2026-12-07T10:00:00.000Z'));
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'treasury-')), 'treasury.json');
const cli = cliOn(() => t, { CONNECT_TREASURY_FILE: file });

beforeAll(async () => {
  fs.writeFileSync(file, JSON.stringify(policy));
  t = await startTestApp({ treasuryFile: file }, undefined, { clock });
});
afterAll(() => t.close());

describe('treasury networks: the policy as the operator sees it, and pausing sweeps (docs/treasury.md)', () => {
  it('lists each network of the policy with its assets, amounts as decimal strings, none paused', async () => {
    const res = await t.admin('GET', '/treasury/networks');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      object: 'list',
      data: [
        {
          object: 'treasury_network',
          network: 'ethereum',
          sweep_every_seconds: 900,
          max_fee_per_sweep: '0.002',
          max_fees_per_day: '0.5',
          pause: null,
          assets: [{ asset: 'USDC', float_target: '20000', float_low: '5000', float_high: '50000', cold_address: COLD, min_sweep: '25', max_cost_share: '0.01' }],
        },
        {
          object: 'treasury_network',
          network: 'tron',
          sweep_every_seconds: 600,
          max_fee_per_sweep: null,
          max_fees_per_day: null,
          pause: null,
          assets: [{ asset: 'USDT', float_target: '1000.5', float_low: '100', float_high: '2000', cold_address: null, min_sweep: '10', max_cost_share: '0.05' }],
        },
      ],
    });
  });

  it('a pause is stored with its reason and time; pausing again keeps the first; resume ends it', async () => {
    const paused = await t.admin('POST', '/treasury/networks/ethereum/pause', { reason: 'rotating the hot wallet' });
    expect(paused.json()).toMatchObject({ network: 'ethereum', pause: { reason: 'rotating the hot wallet', paused_at: '2026-12-07T10:00:00.000Z' } });
    clock.advance(60_000);
    expect((await t.admin('POST', '/treasury/networks/ethereum/pause', { reason: 'again' })).json().pause).toEqual(paused.json().pause);
    const listed = (await t.admin('GET', '/treasury/networks')).json().data;
    expect(listed.map((n: { network: string; pause: unknown }) => [n.network, n.pause !== null])).toEqual([['ethereum', true], ['tron', false]]);
    expect((await t.admin('POST', '/treasury/networks/ethereum/resume')).json()).toMatchObject({ network: 'ethereum', pause: null });
    expect((await t.admin('GET', '/treasury/networks')).json().data[0].pause).toBeNull();
  });

  it('a network the policy does not name is 404, saying which it names', async () => {
    const res = await t.admin('POST', '/treasury/networks/polygon/pause', {});
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'resource_not_found', param: 'network', message: 'polygon is not a network of the treasury policy (those: ethereum, tron).' });
  });

  it('the CLI: treasury networks, pause --reason and resume print what the operator API answers', async () => {
    const paused = await cli('treasury', 'pause', 'tron', '--reason', 'energy prices');
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({ network: 'tron', pause: { reason: 'energy prices' } });
    expect(JSON.parse((await cli('treasury', 'networks')).stdout).data[1].pause.reason).toBe('energy prices');
    expect(JSON.parse((await cli('treasury', 'resume', 'tron')).stdout).pause).toBeNull();
    const unknown = await cli('treasury', 'pause', 'atlantis');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('atlantis is not a network of the treasury policy');
  });
});
