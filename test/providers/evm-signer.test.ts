import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseTransaction, type TransactionSerializable } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSigner, remoteSigner, signerKeyFromFile } from '../../src/providers/chains/evm-signer.js';
import { startAnvil, type Anvil } from '../support/evm/anvil.js';
import { HOT_WALLET, HOT_WALLET_KEY } from '../support/evm/live-app.js';

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil();
});
afterAll(() => anvil?.close());

const transaction: TransactionSerializable = {
  type: 'eip1559',
  chainId: 31337,
  nonce: 7,
  to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  value: 12345n,
  gas: 21000n,
  maxFeePerGas: 3_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
};

describe('EVM signers', () => {
  it('a key from the environment or a file signs as its address', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'signer-')), 'key');
    fs.writeFileSync(file, `${HOT_WALLET_KEY}\n`, { mode: 0o600 });
    for (const signer of [localSigner(HOT_WALLET_KEY), signerKeyFromFile(file)]) {
      expect(signer.address).toBe(HOT_WALLET);
      expect(parseTransaction(await signer.signTransaction(transaction))).toMatchObject({ nonce: 7, value: 12345n, to: transaction.to!.toLowerCase() });
    }
  });

  it('a malformed key is refused without echoing it', () => {
    const bad = `${HOT_WALLET_KEY.slice(0, 40)}zz`;
    expect(() => localSigner(bad)).toThrow(/^The EVM signer key must be 0x followed by 64 hex digits$/);
  });

  it('a remote signer (eth_signTransaction; anvil holds this key) signs exactly what the local key signs', async () => {
    const remote = remoteSigner(anvil.url, HOT_WALLET, 10_000);
    expect(await remote.signTransaction(transaction)).toBe(await localSigner(HOT_WALLET_KEY).signTransaction(transaction));
  });

  it('a remote signer that refuses is an error naming its answer', async () => {
    const remote = remoteSigner(anvil.url, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 10_000);
    await expect(remote.signTransaction(transaction)).rejects.toThrow(/the remote signer refused to sign/);
  });

  it('a remote signer that signs another transaction than asked, or with another key, is refused: nothing is broadcast', async () => {
    const answering = (raw: string) => remoteSigner('http://signer.invalid', HOT_WALLET, 10_000, async () => Response.json({ jsonrpc: '2.0', id: 1, result: raw }));
    const elsewhere = await localSigner(HOT_WALLET_KEY).signTransaction({ ...transaction, to: '0x000000000000000000000000000000000000dEaD' });
    await expect(answering(elsewhere).signTransaction(transaction)).rejects.toThrow(
      `the remote signer signed another transaction than asked: its to is 0x000000000000000000000000000000000000dead, not ${transaction.to!.toLowerCase()}`,
    );
    const otherKey = await localSigner(`0x${'11'.repeat(32)}`).signTransaction(transaction);
    await expect(answering(otherKey).signTransaction(transaction)).rejects.toThrow(/^the remote signer signed another transaction than asked: it is signed by 0x\w+, not 0x70997970C51812dc3A010C7d01b50e0d17dc79C8$/);
  });

  it('a remote signer that never answers is abandoned after its timeout: it cannot hold a payout for ever', async () => {
    const silent = remoteSigner('http://signer.invalid', HOT_WALLET, 50, (_url, init) => new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason))));
    await expect(silent.signTransaction(transaction)).rejects.toThrow(/timeout|aborted/i);
  });
});
