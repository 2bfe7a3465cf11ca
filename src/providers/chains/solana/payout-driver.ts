import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import {
  address,
  createSolanaRpc,
  getBase64Decoder,
  getBase64Encoder,
  isSolanaError,
  signature as toSignature,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  type Address,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { SolanaConfig } from '../../../config.js';
import type { Catalog } from '../../../domain/catalog.js';
import { DomainError } from '../../../domain/errors.js';
import { Decimal, toBaseUnits } from '../../../domain/money.js';
import type { BalanceReader } from '../balance-reader.js';
import type { ExpiringChainDriver, FinalPoint, Lookup, SignedTransfer } from '../expiring-driver.js';
import type { PayoutTransfer } from '../payout-transfer.js';
import { solanaSigner, solanaSignerFromFile } from './signer.js';
import { signSolPayout } from './sol-payout-transaction.js';
import { solanaBalanceReader } from './solana-balances.js';
import { hidingUrl } from './solana-rpc.js';
import { splPayoutMaxCostLamports, TOKEN_ACCOUNT_RENT_LAMPORTS, type PriorityFee } from './spl-payout-fee.js';
import { signSplPayout, type SignedSplPayout } from './spl-payout-transaction.js';

const LAMPORTS_PER_SOL = 1_000_000_000;
/**
 * Compute unit limits, the units the priority fee is charged on: an SPL payout that creates the destination's token
 * account uses up to about 30,000 units (the account program's address search varies with the keys); a System
 * transfer about 450 with its compute budget instructions.
 */
const SPL_COMPUTE_UNITS = 40_000;
const SOL_COMPUTE_UNITS = 1_000;
/** The priority fee bids what 3 in 4 of recent blocks' transactions writing the same accounts paid at least... */
export const PRIORITY_FEE_PERCENTILE = 75;
/** ...and never more than this, in micro-lamports per compute unit: 40,000 lamports on an SPL payout's limit. */
export const MAX_MICRO_LAMPORTS_PER_COMPUTE_UNIT = 1_000_000n;

type Rpc = ReturnType<typeof createSolanaRpc>;
interface Node {
  rpc: Rpc;
  call: ReturnType<typeof hidingUrl>;
}

/** The nearest-rank percentile of the fees the node saw paid recently (0 when it saw none), bounded. */
export function priorityPrice(recent: readonly bigint[]): bigint {
  if (recent.length === 0) return 0n;
  const sorted = [...recent].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const bid = sorted[Math.ceil((PRIORITY_FEE_PERCENTILE / 100) * sorted.length) - 1]!;
  return bid < MAX_MICRO_LAMPORTS_PER_COMPUTE_UNIT ? bid : MAX_MICRO_LAMPORTS_PER_COMPUTE_UNIT;
}

/** An answer the node gave in words: it holds the transaction already (the preflight found it processed). */
function alreadyProcessed(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (isSolanaError(e, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED) || /already (been )?processed/i.test(e.message)) return true;
  }
  return false;
}

/** What the node said when it answered a JSON-RPC error (it refused), or null when it did not answer. */
function nodeRefusal(error: unknown): string | null {
  if (!isSolanaError(error)) return null;
  const code = Number(error.context.__code);
  if (code > -32000 || code < -32768) return null;
  const said = (error.context as { __serverMessage?: unknown }).__serverMessage;
  return `JSON-RPC error ${code}${typeof said === 'string' ? `: ${said.slice(0, 200)}` : ''}`;
}

/**
 * The Solana driver of the expiring-payout engine over JSON-RPC (docs/live-solana.md, "Payouts"): SOL and SPL token
 * transfers from the hot wallet, each valid until its blockhash's `lastValidBlockHeight`, priced at a percentile of
 * recent priority fees and capped by what the quote charged. Final means `finalized`; the deadline is passed once the
 * finalized block height exceeds `lastValidBlockHeight`.
 */
export class SolanaDriver implements ExpiringChainDriver {
  private readonly nodes = new Map<string, Node>();
  private readonly balances = new Map<string, BalanceReader>();

  constructor(
    private readonly catalog: Catalog,
    rpcUrls: ReadonlyMap<string, string>,
    private readonly signer: KeyPairSigner,
    timeoutMs: number,
  ) {
    for (const [network, url] of rpcUrls) {
      this.nodes.set(network, { rpc: createSolanaRpc(url), call: hidingUrl(url, timeoutMs) });
      this.balances.set(network, solanaBalanceReader(url, timeoutMs));
    }
  }

  private node(network: string): Node {
    const node = this.nodes.get(network);
    if (!node) throw new DomainError('provider_unavailable', `Live payouts on ${network} are not configured on this deployment.`);
    return node;
  }

  async funds(request: PayoutTransfer): Promise<{ held: bigint; needed: bigint }> {
    // A network without live payouts here is refused as every other call refuses it.
    this.node(request.network);
    const pair = this.catalog.pair(request.asset, request.network)!;
    // At `finalized`: money on its way to the hot wallet counts once it can no longer be rolled back.
    const [held] = await this.balances.get(request.network)!.balances(pair.token_contract, [this.signer.address]);
    return { held: held!, needed: toBaseUnits(request.amount, pair.decimals) };
  }

  async sign(request: PayoutTransfer, feeCap: string): Promise<{ signed: SignedTransfer } | { refused: string } | { short: { held: bigint; needed: bigint } }> {
    const { rpc, call } = this.node(request.network);
    const pair = this.catalog.pair(request.asset, request.network)!;
    const amount = toBaseUnits(request.amount, pair.decimals);
    const capLamports = BigInt(new Decimal(feeCap).times(LAMPORTS_PER_SOL).toFixed(0));
    const destination = address(request.destination);
    const blockhash = call('getLatestBlockhash', (abortSignal) => rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal }));
    const accountOf = (account: Address) =>
      call('getAccountInfo', async (abortSignal) => (await rpc.getAccountInfo(account, { commitment: 'confirmed', encoding: 'base64' }).send({ abortSignal })).value);
    const priorityFee = async (written: Address[], computeUnitLimit: number): Promise<PriorityFee> => {
      const recent = await call('getRecentPrioritizationFees', (abortSignal) => rpc.getRecentPrioritizationFees(written).send({ abortSignal }));
      return { computeUnitLimit, microLamportsPerComputeUnit: priorityPrice(recent.map((r) => r.prioritizationFee)) };
    };
    const hotLamports = async () => (await accountOf(this.signer.address))?.lamports ?? 0n;
    // Above the cap: refused; more than the hot wallet's SOL can pay (with the SOL a native payout sends): it waits.
    const overCap = async (cost: bigint, sent = 0n) => {
      if (cost > capLamports) return { refused: `The network fee now (${cost} lamports) is above what the quote charged (${capLamports} lamports).` };
      const held = await hotLamports();
      return held < cost + sent ? { short: { held, needed: cost + sent } } : null;
    };

    let signed: SignedSplPayout;
    if (pair.token_contract === null) {
      const [latest, existing, fee] = await Promise.all([blockhash, accountOf(destination), priorityFee([this.signer.address, destination], SOL_COMPUTE_UNITS)]);
      if (existing === null) {
        const minimum = await call('getMinimumBalanceForRentExemption', (abortSignal) => rpc.getMinimumBalanceForRentExemption(0n).send({ abortSignal }));
        // The runtime refuses a transfer that leaves a new account below the rent-exempt minimum.
        if (amount < minimum) return { refused: `${request.destination} has no account yet, and a transfer creating one must send at least ${minimum} lamports.` };
      }
      const refusal = await overCap(splPayoutMaxCostLamports(fee, false), amount);
      if (refusal) return refusal;
      signed = await signSolPayout({ hotWallet: this.signer, destination, lamports: amount, blockhash: latest.value, priorityFee: fee });
    } else {
      const mint = address(pair.token_contract);
      const [source, tokenAccount] = await Promise.all(
        [this.signer.address, destination].map(async (owner) => (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]),
      );
      const [latest, existing, fee] = await Promise.all([blockhash, accountOf(tokenAccount!), priorityFee([this.signer.address, source!, tokenAccount!], SPL_COMPUTE_UNITS)]);
      // Created in the same transaction only when missing: then its rent is part of what the payout costs.
      const createDestinationAccount = existing === null;
      const refusal = await overCap(splPayoutMaxCostLamports(fee, createDestinationAccount));
      if (refusal) return refusal;
      signed = await signSplPayout({
        hotWallet: this.signer,
        mint,
        decimals: pair.decimals,
        destinationOwner: destination,
        amount,
        createDestinationAccount,
        blockhash: latest.value,
        priorityFee: fee,
      });
    }
    return {
      signed: {
        txId: signed.signature,
        raw: bytesToHex(getBase64Encoder().encode(signed.wireTransaction) as Uint8Array),
        deadline: { kind: 'last_valid_height', height: signed.lastValidBlockHeight },
      },
    };
  }

  /**
   * The rent (in SOL) a token payout to `destination` pays on top when the destination has no token account for the
   * mint, as the quote prices it; zero for SOL and for an existing account. A node that does not answer makes it the
   * rent: a quote may charge too much, never too little.
   */
  async accountCreationCost(network: string, asset: string, destination: string): Promise<string> {
    const pair = this.catalog.pair(asset, network);
    if (!pair?.token_contract) return '0';
    const rent = new Decimal(TOKEN_ACCOUNT_RENT_LAMPORTS.toString()).dividedBy(LAMPORTS_PER_SOL).toFixed();
    const { rpc, call } = this.node(network);
    const mint = address(pair.token_contract);
    try {
      const [tokenAccount] = await findAssociatedTokenPda({ owner: address(destination), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      const { value } = await call('getAccountInfo', (abortSignal) => rpc.getAccountInfo(tokenAccount, { commitment: 'confirmed', encoding: 'base64' }).send({ abortSignal }));
      return value === null ? rent : '0';
    } catch {
      return rent;
    }
  }

  async broadcast(network: string, raw: string): Promise<{ accepted: true } | { accepted: false; reason: string }> {
    const { rpc, call } = this.node(network);
    const wire = getBase64Decoder().decode(hexToBytes(raw)) as Base64EncodedWireTransaction;
    return call('sendTransaction', async (abortSignal) => {
      try {
        // No preflight: the chain decides, and a transaction that fails there is a proof the engine reads at finality.
        await rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight: true }).send({ abortSignal });
        return { accepted: true };
      } catch (error) {
        if (alreadyProcessed(error)) return { accepted: true };
        const refusal = nodeRefusal(error);
        if (refusal === null) throw error;
        return { accepted: false, reason: refusal };
      }
    });
  }

  async finalPoint(network: string): Promise<FinalPoint> {
    const { rpc, call } = this.node(network);
    // One answer for both (separate calls may reach different backends): the block height, what lastValidBlockHeight
    // is stated in, and its slot, what confirmations are counted in (lookups give slots) and what a lookup's
    // context.slot must reach.
    const epoch = await call('getEpochInfo', (abortSignal) => rpc.getEpochInfo({ commitment: 'finalized' }).send({ abortSignal }));
    return { point: epoch.blockHeight, height: epoch.absoluteSlot };
  }

  async lookup(network: string, tx: SignedTransfer, final: FinalPoint): Promise<Lookup> {
    const { rpc, call } = this.node(network);
    const { context, value } = await call('getSignatureStatuses', (abortSignal) =>
      rpc.getSignatureStatuses([toSignature(tx.txId)], { searchTransactionHistory: true }).send({ abortSignal }),
    );
    const status = value[0];
    if (status) return { found: { final: status.confirmationStatus === 'finalized', succeeded: status.err === null, block: status.slot } };
    // The slot the answering node's bank was at: only a node that had reached the finalized slot read first has
    // every block the transaction could have landed in by then.
    return { found: null, absenceProven: context.slot >= final.height };
  }
}

/** The hot wallet the settings name (src/config.ts), or null without one. */
export async function solanaSignerFrom(config: SolanaConfig): Promise<KeyPairSigner | null> {
  if (config.signer === null) return null;
  return 'key' in config.signer ? solanaSigner(config.signer.key) : solanaSignerFromFile(config.signer.keyFile);
}
