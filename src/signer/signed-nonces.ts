import { LRUCache } from 'lru-cache';
import type { EvmSignRequest } from './evm-sweep-rules.js';

/** The nonces remembered, at most: far more than the sweeps in flight at once. */
const REMEMBERED = 100_000;

type Signed = EvmSignRequest['transaction'];

/**
 * What the signer has signed at each nonce of each account (`chainId:address:nonce`): at a nonce it signs one
 * transaction, and then only that one again at fees as high or higher (a replacement that gets a stuck transaction
 * mined), never another. A compromised API host cannot get a second transfer, or a transfer of another amount,
 * signed at a nonce already used. Kept in this process, the latest REMEMBERED.
 */
export class SignedNonces {
  private readonly signed = new LRUCache<string, Signed>({ max: REMEMBERED });

  /** Why `tx` may not be signed at its nonce of `from` on `chainId`, or null: then it is remembered as signed. */
  claim(chainId: number, from: string, tx: Signed): string | null {
    const key = `${chainId}:${from.toLowerCase()}:${tx.nonce}`;
    const before = this.signed.get(key);
    if (before) {
      const same = before.to.toLowerCase() === tx.to.toLowerCase() && before.data.toLowerCase() === tx.data.toLowerCase() && before.value === tx.value && before.gas === tx.gas;
      if (!same) return `nonce ${tx.nonce} of ${from} was signed for another transaction: only that one is signed there again`;
      if (tx.maxFeePerGas < before.maxFeePerGas || tx.maxPriorityFeePerGas < before.maxPriorityFeePerGas) {
        return `nonce ${tx.nonce} of ${from} was signed at higher fees: it is signed again only at fees as high or higher`;
      }
    }
    this.signed.set(key, tx);
    return null;
  }
}
