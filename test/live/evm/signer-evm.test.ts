import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { encodeFunctionData, erc20Abi, maxUint256, parseEther, parseUnits, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../../src/domain/webhooks.js';
import { SignerClient, SignerRefusal } from '../../../src/signer/client.js';
import { EvmDepositKeys } from '../../../src/signer/evm-deposit-keys.js';
import type { EvmSignRequest } from '../../../src/signer/evm-sweep-rules.js';
import { FeeBudget } from '../../../src/signer/fee-budget.js';
import { buildSigner } from '../../../src/signer/server.js';
import { loadSignerSettings } from '../../../src/signer/settings.js';
import { runCli } from '../../../src/cli/run.js';
import { startAnvil, type Anvil } from '../../support/evm/anvil.js';
import { HOT_WALLET, HOT_WALLET_KEY, TEST_XPUB, testCatalogFile } from '../../support/evm/live-app.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
const ACCOUNT = "m/44'/60'/1'";
const COLD = '0x000000000000000000000000000000000000c01d';
const ATTACKER = '0x00000000000000000000000000000000000bad00';
const MAX_FEE = parseEther('0.01');

let anvil: Anvil;
let usdc: Address;
let signer: FastifyInstance;
let url: string;
let chainId: number;
const secret = generateWebhookSecret();
const logs: { level: number; msg: string; refusal?: string; index?: number }[] = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signer-'));

/** A file only its owner may read, as the signer demands of its secrets. */
function privateFile(name: string, content: string, mode = 0o600): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${content}\n`, { mode });
  fs.chmodSync(file, mode);
  return file;
}

/** The signer's environment, as an operator sets it on the signer's own host. */
function signerEnv(over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const policy = {
    ethereum: {
      sweep_every_seconds: 300,
      max_fee_per_sweep: '0.01',
      max_fees_per_day: '1',
      assets: {
        USDC: { float_target: '100', float_low: '10', float_high: '200', cold_address: COLD, min_sweep: '1', max_cost_share: '0.1' },
        ETH: { float_target: '1', float_low: '0.1', float_high: '2', min_sweep: '0.01', max_cost_share: '0.1' },
      },
    },
    base: { sweep_every_seconds: 300, max_fee_per_sweep: '0.001', max_fees_per_day: '0.002', assets: { USDC: { float_target: '1', float_low: '0', float_high: '2', min_sweep: '1', max_cost_share: '0.1' } } },
    // No max_fee_per_sweep nor max_fees_per_day: nothing is signed on it.
    polygon: { sweep_every_seconds: 300, assets: { USDC: { float_target: '1', float_low: '0', float_high: '2', min_sweep: '1', max_cost_share: '0.1' } } },
  };
  return {
    CONNECT_CATALOG_FILE: testCatalogFile([{ network: 'ethereum', anvil, usdc }]),
    CONNECT_TREASURY_FILE: privateFile('treasury.json', JSON.stringify(policy), 0o644),
    CONNECT_SIGNER_SEED_FILE: privateFile('seed', MNEMONIC),
    CONNECT_SIGNER_EVM_ACCOUNT: ACCOUNT,
    CONNECT_EVM_XPUB: TEST_XPUB,
    CONNECT_SIGNER_GAS_KEY_FILE: privateFile('gas-key', HOT_WALLET_KEY),
    CONNECT_SIGNER_SECRET_FILE: privateFile('secret', secret),
    CONNECT_SIGNER_ADDRESS: '127.0.0.1:0',
    ...over,
  };
}

const deposits = EvmDepositKeys.fromMnemonic(MNEMONIC, ACCOUNT, TEST_XPUB);

beforeAll(async () => {
  anvil = await startAnvil();
  usdc = await anvil.deployToken();
  chainId = anvil.chainId;
  const settings = loadSignerSettings(signerEnv());
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  signer = await buildSigner({ ...settings.setup, logger });
  url = await signer.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await signer?.close();
  await anvil?.close();
});

const client = () => new SignerClient(url, secret, 5_000);

/** A request to the signer as the service sends it, signed with the shared secret: for answers the client would not pass. */
function post(request: EvmSignRequest): RequestInit {
  const tx = request.transaction;
  const body = JSON.stringify({
    network: request.network,
    kind: request.kind,
    index: request.index,
    transaction: { to: tx.to, data: tx.data, value: String(tx.value), gas: String(tx.gas), nonce: tx.nonce, max_fee_per_gas: String(tx.maxFeePerGas), max_priority_fee_per_gas: String(tx.maxPriorityFeePerGas) },
  });
  const at = new Date();
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': 'req_case', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('req_case', at, body) },
    body,
  };
}

/** EIP-1559 fees that any block of anvil takes. */
async function fees() {
  const block = await anvil.client.getBlock();
  return { maxFeePerGas: block.baseFeePerGas! * 2n + 1n, maxPriorityFeePerGas: 1n };
}

async function broadcast(raw: Hex) {
  const hash = await anvil.client.sendRawTransaction({ serializedTransaction: raw });
  const receipt = await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
  expect(receipt.status).toBe('success');
  return receipt;
}

const transfer = (to: string, amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to as Address, amount] });
const usdcOf = (holder: Address) => anvil.client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });

describe('the signer on anvil: keyed sweeps signed away from the API host (docs/treasury.md, "The signer")', () => {
  it('a keyed sweep: the gas account tops up exactly the transfer\'s gas, then the deposit key sends the whole balance to the hot wallet', async () => {
    const index = 7;
    const address = deposits.address(index);
    await anvil.sendToken(usdc, address, '25');
    const amount = parseUnits('25', 6);
    const gas = await anvil.client.estimateContractGas({ account: address, address: usdc, abi: erc20Abi, functionName: 'transfer', args: [HOT_WALLET, amount] });
    const price = await fees();
    const topUp: EvmSignRequest = {
      network: 'ethereum',
      kind: 'top_up',
      index,
      transaction: { to: address, data: '0x', value: gas * price.maxFeePerGas, gas: 21_000n, nonce: await anvil.client.getTransactionCount({ address: HOT_WALLET }), ...price },
    };
    await broadcast((await client().signEvm(topUp, HOT_WALLET, chainId)).raw);

    const sweep: EvmSignRequest = { network: 'ethereum', kind: 'sweep', index, transaction: { to: usdc, data: transfer(HOT_WALLET, amount), value: 0n, gas, nonce: 0, ...price } };
    const hotBefore = await usdcOf(HOT_WALLET);
    const signed = await client().signEvm(sweep, address, chainId);
    expect(signed.from).toBe(address);
    await broadcast(signed.raw);
    expect(await usdcOf(address)).toBe(0n);
    expect((await usdcOf(HOT_WALLET)) - hotBefore).toBe(amount);
    expect(logs.filter((l) => l.msg === 'signer: signed' && l.index === index)).toHaveLength(2);
  });

  it('a token sweep to the asset\'s cold address, and a native sweep to the hot wallet, are signed', async () => {
    const price = await fees();
    const toCold: EvmSignRequest = { network: 'ethereum', kind: 'sweep', index: 8, transaction: { to: usdc, data: transfer(COLD, 1n), value: 0n, gas: 60_000n, nonce: 0, ...price } };
    expect((await client().signEvm(toCold, deposits.address(8), chainId)).from).toBe(deposits.address(8));
    const native: EvmSignRequest = { network: 'ethereum', kind: 'sweep', index: 8, transaction: { to: HOT_WALLET, data: '0x', value: 10n ** 15n, gas: 21_000n, nonce: 1, ...price } };
    expect((await client().signEvm(native, deposits.address(8), chainId)).from).toBe(deposits.address(8));
  });

  const price = { maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 8n };
  const sweepOf = (to: string, data: Hex, value = 0n, network = 'ethereum'): EvmSignRequest => ({
    network,
    kind: 'sweep',
    index: 3,
    transaction: { to: to as Address, data, value, gas: 60_000n, nonce: 0, ...price },
  });
  const topUpOf = (to: string, value: bigint, data: Hex = '0x'): EvmSignRequest => ({
    network: 'ethereum',
    kind: 'top_up',
    index: 3,
    transaction: { to: to as Address, data, value, gas: 21_000n, nonce: 0, ...price },
  });
  const offPolicy: [string, () => EvmSignRequest, RegExp][] = [
    ['tokens to an address that is neither the hot wallet nor the cold address', () => sweepOf(usdc, transfer(ATTACKER, 1n)), /neither the hot wallet nor the USDC cold address/],
    ['the native coin to such an address', () => sweepOf(ATTACKER, '0x', 10n ** 18n), /neither the hot wallet nor the ETH cold address/],
    ['the native coin to the cold address of another asset (USDC\'s)', () => sweepOf(COLD, '0x', 10n ** 18n), /neither the hot wallet nor the ETH cold address/],
    ['an approve instead of a transfer', () => sweepOf(usdc, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [ATTACKER, maxUint256] })), /one ERC-20 transfer call/],
    ['a transferFrom', () => sweepOf(usdc, encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [deposits.address(3), ATTACKER, 1n] })), /one ERC-20 transfer call/],
    ['a transfer with bytes after the call', () => sweepOf(usdc, `${transfer(HOT_WALLET, 1n)}00`), /one ERC-20 transfer call/],
    ['a call to a contract that is not a policy asset\'s', () => sweepOf(ATTACKER, transfer(HOT_WALLET, 1n)), /not the contract of an asset the policy sweeps/],
    ['a token sweep carrying the native coin', () => sweepOf(usdc, transfer(HOT_WALLET, 1n), 1n), /sends no native coin/],
    ['a token sweep of nothing (gas spent for no money moved)', () => sweepOf(usdc, transfer(HOT_WALLET, 0n)), /moves more than 0/],
    ['a native sweep moving less than its fee can cost (a deposit burned into fees)', () => sweepOf(HOT_WALLET, '0x', 60_000n * 10n ** 9n - 1n), /moves more than its fee can cost/],
    ['a native sweep on a network whose policy does not sweep its native coin', () => sweepOf(HOT_WALLET, '0x', 1n, 'base'), /does not sweep the network's native coin/],
    ['anything on a network of the policy without max_fee_per_sweep', () => sweepOf(usdc, transfer(HOT_WALLET, 1n), 0n, 'polygon'), /nothing is signed on it/],
    ['anything on a network the policy does not name', () => sweepOf(usdc, transfer(HOT_WALLET, 1n), 0n, 'arbitrum'), /nothing is signed on it/],
    ['a top-up to an address that is not the index\'s deposit address', () => topUpOf(ATTACKER, 1n), /goes only to deposit address 3/],
    ['a top-up above max_fee_per_sweep', () => topUpOf(deposits.address(3), MAX_FEE + 1n), /at most max_fee_per_sweep/],
    ['a top-up with call data', () => topUpOf(deposits.address(3), 1n, '0x12345678'), /carries no call data/],
    ['a transaction whose fee can exceed max_fee_per_sweep', () => ({ ...topUpOf(deposits.address(3), 1n), transaction: { ...topUpOf(deposits.address(3), 1n).transaction, gas: 21_000n, maxFeePerGas: MAX_FEE } }), /above max_fee_per_sweep/],
    ['a priority fee above the max fee', () => ({ ...topUpOf(deposits.address(3), 1n), transaction: { ...topUpOf(deposits.address(3), 1n).transaction, maxPriorityFeePerGas: 2n * 10n ** 9n } }), /priority fee is above its max fee/],
  ];

  it.each(offPolicy)('refuses %s (403 refused), and logs the refusal', async (_name, request, reason) => {
    const asked = request();
    const refused = await client()
      .signEvm(asked, deposits.address(3), chainId)
      .catch((error: unknown) => error);
    if (!(refused instanceof SignerRefusal)) throw new Error(`signed: ${String(refused)}`);
    expect(refused).toMatchObject({ status: 403, code: 'refused', message: expect.stringMatching(reason) });
    const refusals = logs.filter((l) => l.msg === 'signer: refused a request its policy does not allow');
    expect(refusals.at(-1)).toMatchObject({ level: 40, refusal: refused.message.replace('the signer refused: ', '') });
  });

  const malformed: [string, () => EvmSignRequest, RegExp][] = [
    ['a value of 2^256 or more', () => sweepOf(HOT_WALLET, '0x', 2n ** 256n), /below 2\^256/],
    ['a gas limit below 21,000', () => ({ ...topUpOf(deposits.address(3), 1n), transaction: { ...topUpOf(deposits.address(3), 1n).transaction, gas: 0n } }), /gas must be at least 21000/],
  ];

  it.each(malformed)('refuses %s as no transaction at all (400 invalid_request)', async (_name, request, reason) => {
    await expect(client().signEvm(request(), deposits.address(3), chainId)).rejects.toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(reason) });
  });

  it('an address in any letter case is the same address: a top-up to the deposit address in capitals is signed, to it', async () => {
    const asked = { ...topUpOf(deposits.address(3).toUpperCase().replace('0X', '0x'), 1n), transaction: { ...topUpOf(deposits.address(3), 1n).transaction, to: deposits.address(3).toUpperCase().replace('0X', '0x') as Address, nonce: 100 } };
    const signed = await client().signEvm({ ...asked, transaction: { ...asked.transaction, to: deposits.address(3) } }, HOT_WALLET, chainId);
    expect(signed.from).toBe(HOT_WALLET);
    const raw = await fetch(`${url}/v1/evm/sign`, post(asked));
    expect(raw.status).toBe(200);
  });

  it("stops signing for a network once its day's fees and top-ups would pass max_fees_per_day, and starts again the next UTC day", async () => {
    // base: at most 0.001 ETH a transaction, 0.002 a day. Each top-up below can cost 0.0009 ETH carried + 0.000021 of fee.
    const baseChainId = 8453;
    const topUp: EvmSignRequest = {
      network: 'base',
      kind: 'top_up',
      index: 4,
      transaction: { to: deposits.address(4), data: '0x', value: 9n * 10n ** 14n, gas: 21_000n, nonce: 0, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 8n },
    };
    const budgetSigner = await buildSigner({ ...loadSignerSettings(signerEnv()).setup, logger: pino({ level: 'silent' }), budget: new FeeBudget(() => day) });
    let day = new Date('2026-12-08T23:00:00Z');
    const budgetUrl = await budgetSigner.listen({ host: '127.0.0.1', port: 0 });
    try {
      const budgeted = new SignerClient(budgetUrl, secret, 5_000);
      for (const nonce of [0, 1]) await budgeted.signEvm({ ...topUp, transaction: { ...topUp.transaction, nonce } }, HOT_WALLET, baseChainId);
      await expect(budgeted.signEvm({ ...topUp, transaction: { ...topUp.transaction, nonce: 2 } }, HOT_WALLET, baseChainId)).rejects.toMatchObject({
        status: 403,
        message: expect.stringContaining("base's fees for today would pass max_fees_per_day (2000000000000000 wei)"),
      });
      day = new Date('2026-12-09T00:00:01Z');
      expect((await budgeted.signEvm({ ...topUp, transaction: { ...topUp.transaction, nonce: 2 } }, HOT_WALLET, baseChainId)).from).toBe(HOT_WALLET);
    } finally {
      await budgetSigner.close();
    }
  });

  it('at a nonce it signs one transaction, then only that one again at fees as high or higher (a replacement), never another', async () => {
    const sweep = (amount: bigint, maxFeePerGas: bigint): EvmSignRequest => ({
      network: 'ethereum',
      kind: 'sweep',
      index: 9,
      transaction: { to: usdc, data: transfer(HOT_WALLET, amount), value: 0n, gas: 60_000n, nonce: 0, maxFeePerGas, maxPriorityFeePerGas: 10n ** 8n },
    });
    const from = deposits.address(9);
    await client().signEvm(sweep(5n, 10n ** 9n), from, chainId);
    expect((await client().signEvm(sweep(5n, 2n * 10n ** 9n), from, chainId)).from).toBe(from);
    await expect(client().signEvm(sweep(5n, 10n ** 9n), from, chainId)).rejects.toMatchObject({ status: 403, message: expect.stringContaining('was signed at higher fees') });
    await expect(client().signEvm(sweep(6n, 3n * 10n ** 9n), from, chainId)).rejects.toMatchObject({ status: 403, message: expect.stringContaining('was signed for another transaction') });
    // Another nonce of the same address is another transaction.
    expect((await client().signEvm({ ...sweep(6n, 10n ** 9n), transaction: { ...sweep(6n, 10n ** 9n).transaction, nonce: 1 } }, from, chainId)).from).toBe(from);
  });

  it('refuses requests not signed with the shared secret, signed too long ago, or changed after signing (401), and logs them', async () => {
    const body = JSON.stringify({ network: 'ethereum', kind: 'top_up', index: 3, transaction: { to: deposits.address(3), data: '0x', value: '1', gas: '21000', nonce: 101, max_fee_per_gas: '1', max_priority_fee_per_gas: '1' } });
    const post = (headers: Record<string, string>, sent = body) => fetch(`${url}/v1/evm/sign`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: sent });
    const signedWith = (key: string, at: Date, id = 'req_1') => ({ 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign(id, at, body) });
    const now = new Date();
    expect((await post({})).status).toBe(401);
    expect((await post(signedWith(generateWebhookSecret(), now))).status).toBe(401);
    expect((await post(signedWith(secret, new Date(now.getTime() - 10 * 60_000)))).status).toBe(401);
    expect((await post(signedWith(secret, now), body.replace('"value":"1"', '"value":"2"'))).status).toBe(401);
    expect(logs.filter((l) => l.msg === 'signer: refused an unauthenticated request').length).toBeGreaterThanOrEqual(4);
    // The same request, signed: it passes authentication and the policy.
    expect((await post(signedWith(secret, now))).status).toBe(200);
    // Signed, but not JSON: authentic, and refused as malformed.
    const notJson = 'not json';
    const headers = { 'webhook-id': 'req_2', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('req_2', now, notJson) };
    expect((await post(headers, notJson)).status).toBe(400);
    expect(JSON.stringify(logs)).not.toContain(secret.slice(6));
  });

  it('a signer that signs something other than what was asked is caught by the service before anything is broadcast', async () => {
    // A compromised channel or signer: the request reaches it with another nonce.
    const tampering: typeof fetch = (input, init) => fetch(input, { ...init, body: String(init!.body).replace('"nonce":0', '"nonce":5') });
    const asked = topUpOf(deposits.address(3), 1n);
    // The body changed after the service signed it, so the real signer refuses it; a signer that ignored its
    // secret would sign, and the answer would be checked field by field.
    await expect(new SignerClient(url, secret, 5_000, tampering).signEvm(asked, HOT_WALLET, chainId)).rejects.toThrow(/refused/);
    const lying: typeof fetch = async (input, init) => {
      const answer = await (await fetch(input, init)).json();
      const other = await client().signEvm({ ...asked, transaction: { ...asked.transaction, nonce: 5 } }, HOT_WALLET, chainId);
      return new Response(JSON.stringify({ ...answer, raw: other.raw }), { status: 200 });
    };
    await expect(new SignerClient(url, secret, 5_000, lying).signEvm(asked, HOT_WALLET, chainId)).rejects.toThrow('the signer signed something else: its nonce is 5, not 0');
  });
});

describe('the signer\'s settings: checked before it listens', () => {
  it('refuses a seed, key or secret file that others may read', () => {
    const seed = privateFile('open-seed', MNEMONIC, 0o644);
    expect(() => loadSignerSettings(signerEnv({ CONNECT_SIGNER_SEED_FILE: seed }))).toThrow(/CONNECT_SIGNER_SEED_FILE .* may be read by others \(mode 644\): chmod 600 it/);
  });

  it('refuses a seed whose account is not the xpub the API host hands addresses out from', () => {
    expect(() => loadSignerSettings(signerEnv({ CONNECT_SIGNER_EVM_ACCOUNT: "m/44'/60'/0'" }))).toThrow("The seed's account m/44'/60'/0' is not the account of CONNECT_EVM_XPUB");
  });

  it('refuses to start with nothing to sign, and without its secret', () => {
    const policy = privateFile('none.json', JSON.stringify({ polygon: { sweep_every_seconds: 300, assets: {} } }));
    expect(() => loadSignerSettings(signerEnv({ CONNECT_TREASURY_FILE: policy }))).toThrow('no EVM network with max_fee_per_sweep and max_fees_per_day');
    expect(() => loadSignerSettings(signerEnv({ CONNECT_SIGNER_SECRET_FILE: '' }))).toThrow('CONNECT_SIGNER_SECRET_FILE must be set');
  });

  it('`connect-payments signer secret` prints a new secret for the channel', async () => {
    let stdout = '';
    const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => {} } };
    expect(await runCli(['signer', 'secret'], io, async () => Promise.reject(new Error('no database')), {})).toBe(0);
    expect(stdout).toMatch(/^whsec_[A-Za-z0-9+/=]{44}\n$/);
  });
});
