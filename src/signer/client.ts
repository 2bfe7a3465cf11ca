import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isHex, keccak256, type Address } from 'viem';
import { remoteSigningMismatch } from '../providers/chains/evm-signer.js';
import type { EvmSignRequest } from './evm-sweep-rules.js';
import type { EvmSignBody, EvmSigned, SignerError } from './wire.js';

/** The signer said no (403), did not take the request (401, 400), or failed (500): nothing was signed. */
export class SignerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`the signer refused: ${message}`);
  }
}

function bodyOf({ network, kind, index, transaction: tx }: EvmSignRequest): EvmSignBody {
  return {
    network,
    kind,
    index,
    transaction: {
      to: tx.to,
      data: tx.data,
      value: tx.value.toString(),
      gas: tx.gas.toString(),
      nonce: tx.nonce,
      max_fee_per_gas: tx.maxFeePerGas.toString(),
      max_priority_fee_per_gas: tx.maxPriorityFeePerGas.toString(),
    },
  };
}

/**
 * The service's side of the channel to the signer process: each request signed with the shared secret (Standard
 * Webhooks: id, timestamp, HMAC-SHA256 over both and the body), each answer checked to be the very transaction asked
 * for, signed by the expected address, before anything may broadcast it.
 */
export class SignerClient {
  private readonly signing: Webhook;

  constructor(
    private readonly url: string,
    secret: string,
    private readonly timeoutMs: number,
    private readonly fetcher: typeof fetch = fetch,
  ) {
    this.signing = new Webhook(secret);
  }

  /**
   * `from`: the address that must have signed (the deposit address of the index, or the gas account); `chainId`: the
   * catalog's for the network, which the signer must have signed for.
   */
  async signEvm(request: EvmSignRequest, from: Address, chainId: number): Promise<EvmSigned> {
    const body = JSON.stringify(bodyOf(request));
    const id = `req_${randomUUID()}`;
    const at = new Date();
    const response = await this.fetcher(new URL('/v1/evm/sign', this.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': this.signing.sign(id, at, body),
      },
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const answer = (await response.json().catch(() => null)) as Partial<EvmSigned> | SignerError | null;
    if (!response.ok || answer === null || !('raw' in answer) || typeof answer.raw !== 'string' || !isHex(answer.raw)) {
      const error = answer !== null && 'error' in answer && typeof answer.error === 'object' ? answer.error : null;
      throw new SignerRefusal(response.status, error?.code ?? 'signer_error', error?.message ?? `HTTP ${response.status} without a signed transaction`);
    }
    const mismatch = await remoteSigningMismatch({ type: 'eip1559', chainId, ...request.transaction }, answer.raw, from);
    if (mismatch !== null) throw new Error(`the signer signed something else: ${mismatch}`);
    // The hash and the signer are what the bytes say, never what the answer claims.
    return { raw: answer.raw, hash: keccak256(answer.raw), from };
  }
}
