import { erc20Abi, formatEther, parseEther, parseUnits, type Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { Decimal } from '../src/domain/money.js';
import { reconcile, type AddressFigures } from '../src/domain/reconciliation.js';
import type { BalanceReader } from '../src/providers/chains/balance-reader.js';
import { evmBalanceReader } from '../src/providers/chains/balances.js';
import { Reconciliation } from '../src/use-cases/reconciliation.js';
import type { ReconciliationAnswer } from '../src/routes/admin/reconciliation.js';
import { ManualClock } from './support/clock.js';
import { workerSerializers } from './support/app.js';
import { HOT_WALLET, HOT_WALLET_KEY, quiet, TEST_CONFIRMATIONS, TEST_XPUB, useLiveEthereum } from './support/evm/live-app.js';
import { livePayoutKit } from './support/evm/live-payouts.js';
import { signInOperator } from './support/dashboard.js';
import { parseExposition, valueOf } from './support/metrics.js';
import { createAddress, createIntent, json } from './support/partner.js';

const chain = useLiveEthereum();

type Line = ReconciliationAnswer['data'][number];

async function reconcileNow(): Promise<Line[]> {
  const res = await chain.t.admin('POST', '/reconciliation');
  expect(res.statusCode, res.body).toBe(200);
  return json<ReconciliationAnswer>(res).data;
}

const lineOf = (lines: Line[], asset: string) => lines.find((line) => line.network === 'ethereum' && line.asset === asset)!;

async function metric(name: string, labels: Record<string, string>): Promise<number | undefined> {
  return valueOf(parseExposition((await chain.t.admin('GET', '/metrics')).body), name, labels);
}

/** The operator CLI in this process, configured as an operator would configure it for the same chain and database. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
  const database = async () => ({ ...chain.t.db, close: async () => {} });
  const env = {
    CONNECT_DATA_DIR: '/nonexistent-cli-data-dir',
    CONNECT_CATALOG_FILE: chain.t.ctx.config.catalogFile,
    CONNECT_EVM_XPUB: TEST_XPUB,
    CONNECT_EVM_RPC_ETHEREUM: chain.anvil.url,
    CONNECT_EVM_SIGNER_KEY: HOT_WALLET_KEY,
  };
  const code = await runCli(args, io, database, env, workerSerializers());
  return { code, stdout, stderr };
}

/** Tokens leave a deposit address without the service: the holder of its key (here anvil, impersonating it) sends them away. */
async function moveTokensOut(from: string, amount: string): Promise<void> {
  const { client } = chain.anvil;
  const address = from as Address;
  await client.impersonateAccount({ address });
  // Gas for the one transfer, taken back after, so the address's ETH stays what it was.
  await client.setBalance({ address, value: parseEther('1') });
  const hash = await client.writeContract({ account: address, address: chain.ethereum.usdc, abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000dEaD', parseUnits(amount, 6)], chain: null });
  await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
  await client.setBalance({ address, value: 0n });
  await client.stopImpersonatingAccount({ address });
}

describe('reconciliation rules', () => {
  const figures = (address: string, credited: string, pending: string, onChain: string): AddressFigures => ({
    address,
    organizationIds: ['org'],
    credited: new Decimal(credited),
    pending: new Decimal(pending),
    onChain: new Decimal(onChain),
  });
  const ledger = (available: string, reserved: string, inFlight = '0') => ({
    available: new Decimal(available),
    reserved: new Decimal(reserved),
    inFlight: new Decimal(inFlight),
    paidOut: new Decimal(0),
  });

  it('drift is on chain less liabilities, exact in decimals; a broadcast payout counts as gone, so it never makes a shortfall', () => {
    // 0.1 + 0.2 in binary floats is not 0.3: the comparison must be exact.
    const exact = reconcile({ network: 'n', asset: 'A', ledger: ledger('0.1', '0.2'), addresses: [figures('a', '0.3', '0', '0.3')], hotWallet: null });
    expect(exact).toMatchObject({ status: 'ok', drift: new Decimal(0) });
    // The operator moved 5 from a deposit address to the hot wallet with the offline key, and a payout of 5 left from
    // it, mined, not confirmed yet: the ledger still reserves it, the chain no longer has it.
    const inFlight = reconcile({
      network: 'n',
      asset: 'A',
      ledger: ledger('10', '5', '5'),
      addresses: [figures('a', '15', '0', '10')],
      hotWallet: { address: 'h', balance: new Decimal(0) },
    });
    expect(inFlight.details.addresses).toMatchObject([{ address: 'a', reason: 'missing', drift: '-5' }]);
    expect(inFlight.status).toBe('ok');
  });

  it('each drifting address says why: pending deposits, money no deposit explains, money that left; largest first', () => {
    const result = reconcile({
      network: 'n',
      asset: 'A',
      ledger: ledger('30', '0'),
      addresses: [figures('same', '10', '0', '10'), figures('waiting', '0', '2', '2'), figures('stranger', '0', '1', '5'), figures('emptied', '20', '0', '16')],
      hotWallet: null,
    });
    expect(result.status).toBe('surplus');
    expect(result.drift!.toFixed()).toBe('3');
    expect(result.details.addresses.map((a) => [a.address, a.reason, a.drift])).toEqual([
      ['stranger', 'uncredited', '5'],
      ['emptied', 'missing', '-4'],
      ['waiting', 'pending', '2'],
    ]);
  });
});

describe('the chain reconciled against the ledger on anvil', () => {
  let credited: string;
  let stranger: string;
  let waiting: string;

  it('a credited token deposit reconciles ok; the hot wallet is read and its ETH is a surplus (the operator\'s float)', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { amount: '10', currencies: ['USDC'] });
    credited = intent.addresses[0]!.address;
    await chain.anvil.sendToken(chain.ethereum.usdc, credited, '10');
    await chain.anvil.mine(TEST_CONFIRMATIONS);
    expect(await chain.watcher().tick()).toBe(1);

    const lines = await reconcileNow();
    expect(lineOf(lines, 'USDC')).toMatchObject({
      status: 'ok',
      on_chain_total: '10',
      ledger_total: '10',
      drift: '0',
      deposit_addresses: { count: 1, credited: '10', pending: '0', on_chain: '10' },
      hot_wallet: { address: HOT_WALLET, balance: '0', paid_out: '0', in_flight: '0' },
      addresses: [],
      error: null,
    });
    const hotEth = formatEther(await chain.anvil.client.getBalance({ address: HOT_WALLET }));
    expect(lineOf(lines, 'ETH')).toMatchObject({ status: 'surplus', ledger_total: '0', drift: hotEth, hot_wallet: { balance: hotEth } });
    expect(await metric('connect_reconciliation_status', { network: 'ethereum', asset: 'USDC', status: 'ok' })).toBe(1);
    expect(await metric('connect_reconciliation_status', { network: 'ethereum', asset: 'USDC', status: 'shortfall' })).toBe(0);
    expect(await metric('connect_reconciliation_drift', { network: 'ethereum', asset: 'USDC' })).toBe(0);

    const { code, stdout } = await cli(['reconcile', '--network', 'ethereum']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/ethereum\s+USDC\s+ok\s+10\s+10\s+0/);
  });

  it('tokens moved out of a deposit address behind the service\'s back: a shortfall naming that address; the CLI exits 1', async () => {
    await moveTokensOut(credited, '4');
    const usdc = lineOf(await reconcileNow(), 'USDC');
    expect(usdc).toMatchObject({ status: 'shortfall', on_chain_total: '6', ledger_total: '10', drift: '-4' });
    expect(usdc.addresses).toEqual([
      { address: credited, organization_ids: [chain.live.organizationId], on_chain: '6', credited: '10', pending: '0', drift: '-4', reason: 'missing' },
    ]);
    expect(await metric('connect_reconciliation_status', { network: 'ethereum', asset: 'USDC', status: 'shortfall' })).toBe(1);
    expect(await metric('connect_reconciliation_drift', { network: 'ethereum', asset: 'USDC' })).toBe(-4);
    expect(await metric('connect_reconciliation_drifting_addresses', { network: 'ethereum', asset: 'USDC' })).toBe(1);

    const text = await cli(['reconcile']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`missing    ${credited}: on chain 6, credited 10, pending 0 (drift -4)`);
    expect(text.stderr).toContain('shortfall on USDC/ethereum (-4)');
    const asJson = await cli(['reconcile', '--json']);
    expect(asJson.code).toBe(1);
    expect(lineOf(JSON.parse(asJson.stdout).data, 'USDC').status).toBe('shortfall');
  });

  it('tokens that arrived without a credit: a surplus naming each address, uncredited or pending', async () => {
    // USDC sent to an address handed out for ETH is never credited; USDC to a USDC address waits for its confirmations.
    stranger = (await createAddress(chain.t, chain.live.key, { asset: 'ETH', network: 'ethereum' })).address;
    waiting = (await createAddress(chain.t, chain.live.key, { asset: 'USDC', network: 'ethereum' })).address;
    await chain.anvil.sendToken(chain.ethereum.usdc, stranger, '5');
    await chain.anvil.sendToken(chain.ethereum.usdc, waiting, '2');
    expect(await chain.watcher().tick()).toBe(0);

    const usdc = lineOf(await reconcileNow(), 'USDC');
    expect(usdc).toMatchObject({ status: 'surplus', on_chain_total: '13', ledger_total: '10', drift: '3', deposit_addresses: { count: 3, pending: '2' } });
    expect(usdc.addresses.map((a) => [a.address, a.reason, a.drift])).toEqual([
      [stranger, 'uncredited', '5'],
      [credited, 'missing', '-4'],
      [waiting, 'pending', '2'],
    ]);
    const listed = json<ReconciliationAnswer>(await chain.t.admin('GET', '/reconciliation?network=ethereum'));
    expect(listed.ok).toBe(true);
    expect(lineOf(listed.data, 'USDC')).toEqual(usdc);

    // The dashboard's page shows the same result, and the addresses behind the drift, each found by the search.
    const page = (await (await signInOperator(chain.t)).get('/admin/reconciliation')).body;
    expect(page).toContain('<strong>surplus</strong>');
    expect(page).toContain('USDC on ethereum: addresses holding other than what was credited');
    for (const address of [stranger, credited, waiting]) expect(page).toContain(`href="/admin/search?q=${address}"`);
    expect(page).toContain('href="/admin/reconciliation">Reconciliation</a>');
  });

  it('a node that fails, or serves another chain, makes the network unavailable, never a drift; the last reading time is kept', async () => {
    const before = lineOf(json<ReconciliationAnswer>(await chain.t.admin('GET', '/reconciliation')).data, 'USDC');
    const clock = new ManualClock(new Date(Date.parse(before.checked_at) + 60_000));
    const down = evmBalanceReader('http://127.0.0.1:9/', 1_000);
    const otherChain: BalanceReader = { ...evmBalanceReader(chain.anvil.url, 1_000), chainId: async () => 8453 };
    for (const [reader, error] of [
      [otherChain, 'the RPC URL serves chain 8453, not 31337'],
      [down, 'HTTP request failed'],
    ] as const) {
      const reconciliation = new Reconciliation(chain.t.db, chain.t.ctx.catalog, clock, [{ network: 'ethereum', reader, hotWallet: HOT_WALLET }]);
      const rows = await reconciliation.run();
      expect(rows.map((row) => [row.status, row.error])).toEqual([...Array(3)].map(() => ['unavailable', expect.stringContaining(error)]));
      expect(rows.find((row) => row.asset === 'USDC')).toMatchObject({ onchain_total: null, drift: null, ledger_total: '10', reconciled_at: new Date(before.reconciled_at!) });
    }
    const usdc = lineOf(json<ReconciliationAnswer>(await chain.t.admin('GET', '/reconciliation')).data, 'USDC');
    expect(usdc).toMatchObject({ status: 'unavailable', drift: null, addresses: [], checked_at: clock.now().toISOString(), reconciled_at: before.reconciled_at });
    expect(usdc.error).not.toContain('127.0.0.1');
    expect(await metric('connect_reconciliation_status', { network: 'ethereum', asset: 'USDC', status: 'unavailable' })).toBe(1);
    expect(await metric('connect_reconciliation_drift', { network: 'ethereum', asset: 'USDC' })).toBeUndefined();
    expect(await metric('connect_reconciliation_last_run_timestamp_seconds', { network: 'ethereum', asset: 'USDC' })).toBe(Date.parse(before.reconciled_at!) / 1000);
  });

  it('the periodic job skips while another process reconciled within the interval, and runs once it is due', async () => {
    const [latest] = await chain.t.ctx.reconciliation.latest();
    const clock = new ManualClock(new Date(latest!.checked_at.getTime() + 30_000));
    const checkedAt = latest!.checked_at;
    const reconciliation = new Reconciliation(chain.t.db, chain.t.ctx.catalog, clock, chain.t.ctx.reconciliation.networks);
    expect(await reconciliation.runIfDue(600)).toEqual([]);
    expect((await reconciliation.latest())[0]!.checked_at).toEqual(checkedAt);
    clock.advance(600_000);
    const notOk = await reconciliation.runIfDue(600);
    expect(notOk.map((row) => [row.asset, row.status])).toEqual([
      ['ETH', 'surplus'],
      ['USDC', 'surplus'],
      // The test chain has no USDT contract: that asset alone cannot be read.
      ['USDT', 'unavailable'],
    ]);
  });

  it('an unknown network is refused naming those reconciled', async () => {
    const res = await chain.t.admin('POST', '/reconciliation?network=polygon');
    expect(res.statusCode).toBe(400);
    expect(json<{ error: { param: string; message: string } }>(res).error).toMatchObject({ param: 'network', message: expect.stringContaining('ethereum') });
  });

  it('a payout from the hot wallet: in flight once broadcast at what its settlement takes (amount and fee), so the drift is the same before and after it completes; the fee the owner paid stays on chain', async () => {
    const kit = livePayoutKit(chain);
    // The operator's float of USDC in the hot wallet.
    await chain.anvil.sendToken(chain.ethereum.usdc, HOT_WALLET, '20');
    const before = lineOf(await reconcileNow(), 'USDC');
    expect(before).toMatchObject({ on_chain_total: '33', ledger_total: '10', drift: '23', hot_wallet: { balance: '20', paid_out: '0', in_flight: '0' } });

    const payout = await kit.pay(chain.live.key, kit.freshDestination(), '3');
    await chain.t.ctx.outbound.sweep(quiet);
    await kit.reaches(chain.live.key, payout.id, 'processing');
    const [{ fee }] = (await chain.t.db.query<{ fee: string }>('SELECT fee::text AS fee FROM payouts WHERE id = $1', [payout.id])) as [{ fee: string }];
    expect(new Decimal(fee).isPositive()).toBe(true);
    const inFlight = lineOf(await reconcileNow(), 'USDC');
    // A native payout's gas comes out of its fee: counting only the amount as gone would show that gas as a shortfall.
    const userSends = new Decimal(fee).plus(3).toFixed();
    expect(inFlight).toMatchObject({
      ledger: { available: new Decimal(7).minus(fee).toFixed(), reserved: userSends, in_flight: userSends, total: new Decimal(7).minus(fee).toFixed() },
      on_chain_total: '30',
      drift: new Decimal(fee).plus(23).toFixed(),
      hot_wallet: { balance: '17', paid_out: '0', in_flight: userSends },
    });

    await chain.anvil.mine(TEST_CONFIRMATIONS);
    await chain.t.ctx.outbound.sweep(quiet);
    await kit.reaches(chain.live.key, payout.id, 'completed');
    const paid = lineOf(await reconcileNow(), 'USDC');
    expect(paid).toMatchObject({
      ledger: { reserved: '0', in_flight: '0', total: new Decimal(7).minus(fee).toFixed() },
      on_chain_total: '30',
      drift: new Decimal(fee).plus(23).toFixed(),
      hot_wallet: { balance: '17', paid_out: '3', in_flight: '0' },
    });
  });
});
