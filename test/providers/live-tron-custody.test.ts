import { describe, expect, it } from 'vitest';
import { TronXpub } from '../../src/providers/chains/tron/xpub.js';
import type { DepositAddressRequest } from '../../src/custody/index.js';
import { liveTronCustody } from '../../src/custody/xpub-custody.js';
import type { Database } from '../../src/store/database.js';
import { TEST_TRON_XPUB } from '../support/tron/xpub.js';

// Neither call below may reach the database: a refusal comes first.
const noDatabase = {} as Database;
const custody = liveTronCustody(noDatabase, TronXpub.parse(TEST_TRON_XPUB), new Set(['tron']), null, { used: async () => false, log: { warn: () => {} } });

describe('live Tron custody', () => {
  it('without a signer, live Tron payouts are refused naming the CONNECT_TRON_SIGNER_* settings; a network it does not serve, by name', () => {
    expect(custody.payoutRefusal('tron')).toBe(
      'Live payouts on tron need a payout signer, and none is configured on this deployment: the operator sets CONNECT_TRON_SIGNER_KEY or CONNECT_TRON_SIGNER_KEY_FILE.',
    );
    expect(custody.payoutRefusal('nile')).toBe('Live payouts on nile are not configured on this deployment.');
  });

  it('an address on a network without a Tron watcher is refused 503 provider_unavailable', async () => {
    await expect(custody.createDepositAddress({ network: 'nile' } as DepositAddressRequest)).rejects.toMatchObject({ code: 'provider_unavailable' });
  });
});
