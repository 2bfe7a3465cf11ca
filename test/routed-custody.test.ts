import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/domain/errors.js';
import type { CustodyProvider } from '../src/custody/index.js';
import { routedCustody } from '../src/custody/routed-custody.js';

/** A provider that answers with its own name, so a test sees which one a call reached. */
function named(name: string, networks: string[], refusal: string | null = null): CustodyProvider {
  return {
    networks: new Set(networks),
    payoutRefusal: () => refusal,
    createDepositAddress: async () => ({ address: name, memo: null, providerRef: null }),
    payoutSurcharge: async () => name,
    payoutFeeFloor: async (network) => {
      throw new Error(`${name} prices ${network}`);
    },
  };
}

const evm = named('evm', ['ethereum', 'base'], 'no EVM signer');
const tron = named('tron', ['tron']);
const custody = routedCustody([evm, tron]);
const addressOn = (network: string) =>
  custody.createDepositAddress({ organizationId: 'o', mode: 'live', ownerKey: 'k', asset: 'USDT', network, addressFormat: 'evm' });

describe('live custody routed by network', () => {
  it('serves the union of the networks, each network by the provider configured for it', async () => {
    expect([...(custody.networks as Set<string>)].sort()).toEqual(['base', 'ethereum', 'tron']);
    expect((await addressOn('base')).address).toBe('evm');
    expect((await addressOn('tron')).address).toBe('tron');
    expect(await custody.payoutSurcharge!('tron', 'USDT', 'T')).toBe('tron');
    await expect(custody.payoutFeeFloor!('ethereum', 'USDT', '0x')).rejects.toThrow('evm prices ethereum');
  });

  it("payouts are refused per network, with the serving provider's reason; a network nobody serves is refused by name", () => {
    expect(custody.payoutRefusal('ethereum')).toBe('no EVM signer');
    expect(custody.payoutRefusal('tron')).toBeNull();
    expect(custody.payoutRefusal('solana')).toBe('Live solana is not configured on this deployment.');
  });

  it('an address on a network nobody serves is refused provider_unavailable', async () => {
    await expect(addressOn('solana')).rejects.toEqual(new DomainError('provider_unavailable', 'Live solana is not configured on this deployment.'));
  });

  it('refuses at start two providers for one network, or one that claims every network', () => {
    expect(() => routedCustody([evm, named('other', ['base'])])).toThrow('two live custody providers serve base');
    expect(() => routedCustody([{ ...tron, networks: 'all' }])).toThrow('each serving a set of networks');
  });
});
