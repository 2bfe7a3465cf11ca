import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { addressByteLength, encodeAddress } from '../providers/chains/address-codecs.js';
import type { CustodyProvider } from './custody-provider.js';

/** Versioned so that changing the derivation later is a deliberate, visible break. */
const DERIVATION_TAG = 'connect-payments/sandbox-deposit-address/v1';

/**
 * Sandbox addresses are a hash of (owner, asset, network), not random: sandbox makes no external calls,
 * so there is no provider to ask, and sandbox intents must be reproducible, so replaying the same owner
 * gives the same address. They are encoded like real addresses so clients exercise their real parsing
 * and QR code paths; nobody holds a key for them, so funds actually sent there are lost.
 */
export const sandboxCustody: CustodyProvider = {
  networks: 'all',
  // Sandbox payouts never leave the service: the sandbox's own progress (or the simulate helper) settles them.
  payoutRefusal: () => null,
  async createDepositAddress({ ownerKey, asset, network, addressFormat }) {
    // JSON keeps the fields apart, so ('ab', 'c') and ('a', 'bc') never hash alike.
    const digest = sha256(utf8ToBytes(JSON.stringify([DERIVATION_TAG, ownerKey, asset, network])));
    const address = encodeAddress(addressFormat, digest.subarray(0, addressByteLength(addressFormat)));
    return { address, memo: null, providerRef: null };
  },
};
