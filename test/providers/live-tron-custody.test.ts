import { describe, expect, it } from 'vitest';
import { TronXpub } from '../../src/providers/chains/tron/xpub.js';
import type { DepositAddressRequest } from '../../src/providers/custody/index.js';
import { liveTronCustody } from '../../src/providers/custody/live-tron-custody.js';
import type { Database } from '../../src/store/database.js';
import { TEST_TRON_XPUB } from '../support/tron/xpub.js';

// Neither call below may reach the database: a refusal comes first.
const noDatabase = {} as Database;
const custody = liveTronCustody(noDatabase, TronXpub.parse(TEST_TRON_XPUB), new Set(['tron']));

describe('live Tron custody', () => {
  it('live Tron payouts are refused, saying this deployment takes Tron deposits only', () => {
    expect(custody.payoutRefusal('tron')).toBe('Live payouts on tron are not served yet: this deployment takes live Tron deposits only.');
  });

  it('an address on a network without a Tron watcher is refused 503 provider_unavailable', async () => {
    await expect(custody.createDepositAddress({ network: 'nile' } as DepositAddressRequest)).rejects.toMatchObject({ code: 'provider_unavailable' });
  });
});
