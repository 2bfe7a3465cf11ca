import { DomainError } from '../domain/errors.js';
import type { CustodyProvider } from './custody-provider.js';

/** No live custody integration exists yet; failing loudly beats handing out an address nobody controls. */
export const liveCustody: CustodyProvider = {
  networks: new Set(),
  payoutRefusal: () => 'Live custody is not configured on this deployment yet, so live payouts cannot be sent.',
  async createDepositAddress() {
    throw new DomainError(
      'provider_unavailable',
      'Live custody is not configured on this deployment yet, so live deposit addresses cannot be created. ' +
        'Use a sandbox key (sk_test_) or configure a custody provider.',
    );
  },
};
