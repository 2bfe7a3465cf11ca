import type { KeyMode } from '../domain/api-keys.js';
import type { CustodyProvider } from './custody-provider.js';
import { liveCustody } from './live-custody.js';
import { sandboxCustody } from './sandbox-custody.js';

export type { CustodyProvider, DepositAddress, DepositAddressRequest } from './custody-provider.js';

const BY_MODE: Record<KeyMode, CustodyProvider> = { test: sandboxCustody, live: liveCustody };

/** The key's mode decides custody: sandbox keys never reach a real provider. */
export function custodyFor(mode: KeyMode): CustodyProvider {
  return BY_MODE[mode];
}
