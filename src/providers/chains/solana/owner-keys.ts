import { ed25519 } from '@noble/curves/ed25519.js';
import { getAddressEncoder, isAddress, type Address } from '@solana/kit';
import type { OwnerKey } from '../../../domain/owner-keys.js';

/** A hardened SLIP-10 path, as ed25519 allows no other (e.g. Phantom's and Solflare's m/44'/501'/i'/0'). */
const HARDENED_PATH = /^m(\/(0|[1-9]\d{0,9})')+$/;
/** A hardened index is i + 2³¹ in 32 bits: i itself is at most 2³¹ − 1. */
const MAX_HARDENED_INDEX = 2 ** 31 - 1;
/** Keys checked between two turns of the event loop: the other requests of this process wait at most ~100 ms. */
const KEYS_BETWEEN_YIELDS = 250;

export interface OwnerKeyInput {
  owner: string;
  derivation_path: string;
}

/** Why no private key can spend from `owner` (a base58 address of 32 bytes), or null when one can. */
function unspendable(owner: Address): string | null {
  let point;
  try {
    // Strict decoding: a y at or above the field prime (a second encoding of a point) is refused too.
    point = ed25519.Point.fromBytes(new Uint8Array(getAddressEncoder().encode(owner)));
  } catch {
    return 'is off the ed25519 curve: no private key can spend from it';
  }
  // The all-zero key, the identity and the other points of order 1, 2, 4 or 8: no secret scalar gives them.
  if (point.isSmallOrder()) return 'is a small-order point (such as the all-zero key or the identity): no private key can spend from it';
  return null;
}

/** What is wrong with a derivation path, or null: not hardened all the way, or an index SLIP-10 cannot derive. */
function pathProblem(path: string): string | null {
  if (!HARDENED_PATH.test(path)) return 'is not a hardened path such as m/44\'/501\'/0\'/0\' (every index hardened, in decimal without leading zeros)';
  const tooBig = path.slice(2).split('/').find((index) => Number(index.slice(0, -1)) > MAX_HARDENED_INDEX);
  return tooBig === undefined ? null : `has the index ${tooBig}, above ${MAX_HARDENED_INDEX}' (the largest hardened index): no SLIP-10 derivation reaches it`;
}

/**
 * The keys an operator imports, checked: each a base58 ed25519 public key of 32 bytes on the curve and not of
 * small order (money sent to a key no private key matches could never move again) with the hardened path it
 * was derived at. Answers the problems, each naming its entry, or the keys; a key given twice is kept once.
 * Other requests are served between batches of keys.
 */
export async function checkOwnerKeys(entries: readonly OwnerKeyInput[]): Promise<{ keys: OwnerKey[] } | { problems: string[] }> {
  const problems: string[] = [];
  const keys = new Map<string, OwnerKey>();
  for (const [i, { owner, derivation_path }] of entries.entries()) {
    // Decoding a point costs about 0.3 ms: 10,000 keys would hold this process's event loop for seconds.
    if (i > 0 && i % KEYS_BETWEEN_YIELDS === 0) await new Promise(setImmediate);
    if (!isAddress(owner)) problems.push(`keys[${i}].owner: "${owner}" is not a base58 public key of 32 bytes`);
    else {
      const keyProblem = unspendable(owner);
      if (keyProblem) problems.push(`keys[${i}].owner: ${owner} ${keyProblem}`);
    }
    const badPath = pathProblem(derivation_path);
    if (badPath) problems.push(`keys[${i}].derivation_path: "${derivation_path}" ${badPath}`);
    const known = keys.get(owner);
    if (known && known.derivationPath !== derivation_path) problems.push(`keys[${i}].owner: ${owner} is given twice with different paths`);
    keys.set(owner, { owner, derivationPath: derivation_path });
  }
  return problems.length > 0 ? { problems } : { keys: [...keys.values()] };
}
