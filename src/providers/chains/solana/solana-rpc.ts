import { address, createSolanaRpc, getBase58Encoder, signature as toSignature, type Signature } from '@solana/kit';
import { withoutUrls } from '../../../domain/text.js';

export interface SolanaSignatureInfo {
  signature: string;
  slot: bigint;
  /** The transaction failed (meta.err): it moved nothing but its fee. */
  failed: boolean;
}

/** One instruction, top-level or inner, with its accounts resolved to addresses. */
export interface SolanaInstruction {
  programId: string;
  accounts: string[];
  data: Uint8Array;
}

export interface SolanaTransaction {
  slot: bigint;
  failed: boolean;
  /** Every instruction in the order the runtime executed it: each top-level one followed by its inner ones. */
  instructions: SolanaInstruction[];
}

/** What the Solana watcher reads from a node, all at `finalized` commitment. */
export interface SolanaChainReader {
  /**
   * Signatures of transactions that loaded `account`, newer than `until` (every one when null), newest first. Only
   * from a node that has reached `until`'s slot: one behind it refuses (minContextSlot), and an answer reaching
   * below that slot (a node that did not find `until`, so listed older ones) is thrown, never taken.
   */
  signaturesSince(account: string, until: { signature: string; slot: bigint | null } | null): Promise<SolanaSignatureInfo[]>;
  transaction(signature: string): Promise<SolanaTransaction | null>;
}

/**
 * Runs one call to the node at `url` within `timeoutMs`; a failure names the method, never the endpoint (providers
 * put API keys in the URL).
 */
export function hidingUrl(url: string, timeoutMs: number) {
  return async <T>(method: string, work: (abortSignal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await work(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      // eslint-disable-next-line preserve-caught-error -- the cause may name the endpoint, whose URL can hold an API key
      throw new Error(`Solana ${method}: ${withoutUrls(String((error as Error).message).replaceAll(url, '<rpc url>'))}`);
    }
  };
}

/** The node's largest page of getSignaturesForAddress: a listing of n signatures costs floor(n / PAGE) + 1 calls. */
export const SIGNATURES_PAGE = 1000;

/**
 * A reader over a JSON-RPC endpoint (@solana/kit). Transactions are read in the `json` encoding, not
 * `jsonParsed`, and decoded here with the token and system programs' own decoders: what is credited then does
 * not depend on a node's parser. Failures name no endpoint (providers put API keys in the URL).
 */
export function rpcSolanaReader(url: string, timeoutMs: number): SolanaChainReader {
  const rpc = createSolanaRpc(url);
  const hiding = hidingUrl(url, timeoutMs);
  return {
    signaturesSince: (account, until) =>
      hiding('getSignaturesForAddress', async (abortSignal) => {
        const found: SolanaSignatureInfo[] = [];
        let before: Signature | undefined;
        // A node answers only once it has reached this slot: the cursor's, then that of the page read before.
        let minContextSlot = until?.slot ?? undefined;
        for (;;) {
          const page = await rpc
            .getSignaturesForAddress(address(account), {
              commitment: 'finalized',
              limit: SIGNATURES_PAGE,
              ...(until ? { until: toSignature(until.signature) } : {}),
              ...(before ? { before } : {}),
              ...(minContextSlot !== undefined ? { minContextSlot } : {}),
            })
            .send({ abortSignal });
          const stale = until?.slot != null ? page.find((entry) => entry.slot < until.slot!) : undefined;
          if (stale) throw new Error(`getSignaturesForAddress answered ${stale.signature} (slot ${stale.slot}), older than the cursor's slot ${until!.slot}: the node has not seen the cursor`);
          found.push(...page.map((entry) => ({ signature: entry.signature, slot: entry.slot, failed: entry.err !== null })));
          if (page.length < SIGNATURES_PAGE) return found;
          before = page.at(-1)!.signature;
          minContextSlot = page[0]!.slot > (minContextSlot ?? 0n) ? page[0]!.slot : minContextSlot;
        }
      }),
    transaction: (signature) =>
      hiding('getTransaction', async (abortSignal) => {
        const found = await rpc
          .getTransaction(toSignature(signature), { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 })
          .send({ abortSignal });
        if (!found) return null;
        const { meta, transaction, slot } = found;
        // Version 0 transactions name some accounts through lookup tables; the node lists them after the static keys.
        const keys: string[] = [...transaction.message.accountKeys, ...(meta?.loadedAddresses?.writable ?? []), ...(meta?.loadedAddresses?.readonly ?? [])];
        const bytes = getBase58Encoder();
        const resolve = (ix: { programIdIndex: number; accounts: readonly number[]; data: string }): SolanaInstruction => ({
          programId: keys[ix.programIdIndex]!,
          accounts: ix.accounts.map((i) => keys[i]!),
          data: new Uint8Array(bytes.encode(ix.data)),
        });
        const inner = new Map((meta?.innerInstructions ?? []).map((set) => [set.index, set.instructions]));
        const instructions = transaction.message.instructions.flatMap((ix, i) => [resolve(ix), ...(inner.get(i) ?? []).map(resolve)]);
        return { slot, failed: meta?.err != null, instructions };
      }),
  };
}
