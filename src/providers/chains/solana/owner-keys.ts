import { isAddress, isOffCurveAddress } from '@solana/kit';
import type { OwnerKey } from '../../../store/solana-owners.js';

/** A hardened SLIP-10 path, as ed25519 allows no other (e.g. Phantom's and Solflare's m/44'/501'/i'/0'). */
const HARDENED_PATH = /^m(\/\d{1,10}')+$/;

export interface OwnerKeyInput {
  owner: string;
  derivation_path: string;
}

/**
 * The keys an operator imports, checked: each a base58 ed25519 public key of 32 bytes on the curve (an
 * off-curve key has no private key, so money sent to it could never move again) with the hardened path it was
 * derived at. Answers the problems, each naming its entry, or the keys; a key given twice is kept once.
 */
export function checkOwnerKeys(entries: readonly OwnerKeyInput[]): { keys: OwnerKey[] } | { problems: string[] } {
  const problems: string[] = [];
  const keys = new Map<string, OwnerKey>();
  entries.forEach(({ owner, derivation_path }, i) => {
    if (!isAddress(owner)) problems.push(`keys[${i}].owner: "${owner}" is not a base58 public key of 32 bytes`);
    else if (isOffCurveAddress(owner)) problems.push(`keys[${i}].owner: ${owner} is off the ed25519 curve: no private key can spend from it`);
    if (!HARDENED_PATH.test(derivation_path)) problems.push(`keys[${i}].derivation_path: "${derivation_path}" is not a hardened path such as m/44'/501'/0'/0'`);
    const known = keys.get(owner);
    if (known && known.derivationPath !== derivation_path) problems.push(`keys[${i}].owner: ${owner} is given twice with different paths`);
    keys.set(owner, { owner, derivationPath: derivation_path });
  });
  return problems.length > 0 ? { problems } : { keys: [...keys.values()] };
}
