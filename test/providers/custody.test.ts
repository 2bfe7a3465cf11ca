import { hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/domain/catalog.js';
import { DomainError } from '../../src/domain/errors.js';
import { ERROR_HTTP } from '../../src/http/error-codes.js';
import { encodeAddress, isValidAddress } from '../../src/providers/chains/address-codecs.js';
import { custodyFor, type DepositAddressRequest } from '../../src/custody/index.js';
import { liveCustody } from '../../src/custody/live-custody.js';
import { sandboxCustody } from '../../src/custody/sandbox-custody.js';

const catalog = Catalog.load();
/** Every (asset, network) pair the shipped catalog can ask custody for, with its network's address format. */
const PAIRS = catalog.data.assets.flatMap((asset) =>
  asset.networks.map((entry) => {
    const network = catalog.data.networks.find((n) => n.code === entry.network);
    if (!network) throw new Error(`catalog names unknown network ${entry.network}`);
    return { asset: asset.code, network: network.code, addressFormat: network.address_format };
  }),
);

function request(overrides: Partial<DepositAddressRequest> = {}): DepositAddressRequest {
  return {
    organizationId: '8d0c7e4e-8f9c-4b59-9f5e-2f4f7d0c9a11',
    mode: 'test',
    ownerKey: '0b6c1f0e-5a43-4b8e-9d2e-7f1c3a9b6d20',
    asset: 'USDC',
    network: 'ethereum',
    addressFormat: 'evm',
    ...overrides,
  };
}

describe('sandbox custody', () => {
  it('is deterministic: the same owner, asset and network give the same address', async () => {
    for (const pair of PAIRS) {
      const first = await sandboxCustody.createDepositAddress(request(pair));
      const second = await sandboxCustody.createDepositAddress(request(pair));
      expect(second).toEqual(first);
    }
  });

  it('gives a different address when only the owner, the asset or the network differs', async () => {
    const base = (await sandboxCustody.createDepositAddress(request())).address;
    const variants = [
      request({ ownerKey: '0b6c1f0e-5a43-4b8e-9d2e-7f1c3a9b6d21' }),
      request({ asset: 'USDT' }),
      request({ network: 'polygon' }),
    ];
    for (const variant of variants) {
      expect((await sandboxCustody.createDepositAddress(variant)).address).not.toBe(base);
    }
  });

  it('never collides across many owners and every catalog pair', async () => {
    const seen = new Set<string>();
    const owners = Array.from({ length: 100 }, (_, i) => `owner-${i}`);
    for (const ownerKey of owners) {
      for (const pair of PAIRS) seen.add((await sandboxCustody.createDepositAddress(request({ ownerKey, ...pair }))).address);
    }
    expect(seen.size).toBe(owners.length * PAIRS.length);
  });

  it('keeps fields apart: moving characters between owner and asset changes the address', async () => {
    const a = await sandboxCustody.createDepositAddress(request({ ownerKey: 'ab', asset: 'C' }));
    const b = await sandboxCustody.createDepositAddress(request({ ownerKey: 'a', asset: 'bC' }));
    expect(a.address).not.toBe(b.address);
  });

  it('mints an address valid for the network of every catalog pair, with no memo and no provider ref', async () => {
    for (const pair of PAIRS) {
      const result = await sandboxCustody.createDepositAddress(request(pair));
      expect(isValidAddress(pair.addressFormat, result.address), `${pair.asset}/${pair.network}`).toBe(true);
      expect(result).toMatchObject({ memo: null, providerRef: null });
    }
  });

  it('mints the canonical shape of each format: checksummed EVM, T… Tron, 32-byte Solana, bc1q… Bitcoin', async () => {
    const mint = async (network: string, addressFormat: DepositAddressRequest['addressFormat']) =>
      (await sandboxCustody.createDepositAddress(request({ ownerKey: 'shape', network, addressFormat }))).address;
    const evm = await mint('ethereum', 'evm');
    expect(evm).toBe(encodeAddress('evm', hexToBytes(evm.slice(2).toLowerCase())));
    expect(evm).not.toBe(evm.toLowerCase());
    expect(await mint('tron', 'tron')).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(isValidAddress('solana', await mint('solana', 'solana'))).toBe(true);
    expect(await mint('bitcoin', 'bitcoin')).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
  });
});

describe('live custody', () => {
  it('refuses with provider_unavailable (HTTP 503) instead of inventing an address', async () => {
    const attempt = liveCustody.createDepositAddress(request({ mode: 'live' }));
    await expect(attempt).rejects.toBeInstanceOf(DomainError);
    await expect(attempt).rejects.toMatchObject({ code: 'provider_unavailable', message: expect.stringContaining('sk_test_') });
    expect(ERROR_HTTP.provider_unavailable.status).toBe(503);
  });
});

describe('custodyFor', () => {
  it('sends sandbox keys to the sandbox provider and live keys to the live provider', () => {
    expect(custodyFor('test')).toBe(sandboxCustody);
    expect(custodyFor('live')).toBe(liveCustody);
  });
});
