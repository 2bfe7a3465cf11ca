import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';

/** Reproducible "random" bytes: a failing seed can be rerun, unlike Math.random. At most 32 bytes. */
export function seededBytes(seed: number, length: number): Uint8Array {
  return sha256(utf8ToBytes(`seed:${seed}`)).slice(0, length);
}
