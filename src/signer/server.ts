import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { Value } from 'typebox/value';
import { getAddress, keccak256, type Hex, type PrivateKeyAccount } from 'viem';
import type { EvmDepositKeys } from './evm-deposit-keys.js';
import { evmRefusal, worstCost, type EvmNetworkRules, type EvmSignRequest } from './evm-sweep-rules.js';
import { FeeBudget } from './fee-budget.js';
import { SignedNonces } from './signed-nonces.js';
import { EvmSignBody, type EvmSigned, type SignerError } from './wire.js';

export interface SignerSetup {
  /** Per EVM network, what may be signed (evmNetworkRules). */
  rules: ReadonlyMap<string, EvmNetworkRules>;
  deposits: EvmDepositKeys;
  /** The account top-ups are sent from (the hot wallet, or an account kept for gas alone). */
  gas: PrivateKeyAccount;
  /** The secret the service signs its requests with (Standard Webhooks, `whsec_…`). */
  secret: string;
  /** What each network has spent today (a clock of its own in tests). */
  budget?: FeeBudget;
  /** What was signed at each nonce. */
  nonces?: SignedNonces;
  logger: FastifyBaseLogger;
}

const fail = (code: SignerError['error']['code'], message: string): SignerError => ({ error: { code, message } });

const UINT256 = 2n ** 256n;
/** Gas limits outside these are no transaction a node takes: refused before the policy is even asked. */
const MIN_GAS = 21_000n;
const MAX_GAS = 2n ** 64n;

/** The request as the policy reads it, or what makes it no transaction at all. */
function requestOf(body: EvmSignBody): EvmSignRequest | { invalid: string } {
  const tx = body.transaction;
  const units = [tx.value, tx.max_fee_per_gas, tx.max_priority_fee_per_gas].map(BigInt);
  if (units.some((n) => n >= UINT256)) return { invalid: 'value and fees must be below 2^256' };
  if (BigInt(tx.gas) < MIN_GAS || BigInt(tx.gas) >= MAX_GAS) return { invalid: `gas must be at least ${MIN_GAS} and below 2^64` };
  return {
    network: body.network,
    kind: body.kind,
    index: body.index,
    transaction: {
      // Checksummed from lower case: the policy compares addresses case-blind, and signing needs them valid.
      to: getAddress(tx.to.toLowerCase()),
      data: tx.data as Hex,
      value: BigInt(tx.value),
      gas: BigInt(tx.gas),
      nonce: tx.nonce,
      maxFeePerGas: BigInt(tx.max_fee_per_gas),
      maxPriorityFeePerGas: BigInt(tx.max_priority_fee_per_gas),
    },
  };
}

/**
 * The signer (`connect-payments signer`, docs/treasury.md): holds the deposit seed and the gas account's key, and
 * signs only what its own policy allows, whatever the service asks. Every request must carry the service's
 * signature over its body and a recent timestamp; every refusal is logged with what was asked.
 */
export async function buildSigner(setup: SignerSetup): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: setup.logger, bodyLimit: 64 * 1024 });
  const verifier = new Webhook(setup.secret);
  const budget = setup.budget ?? new FeeBudget();
  const nonces = setup.nonces ?? new SignedNonces();
  // The signature covers the body's bytes as sent: parsed only once they are verified.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // Every answer in the one shape the service's client reads, a failure of the signer's own included.
  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    if (status < 500) return reply.code(status).send(fail('invalid_request', error.message));
    request.log.error({ err: error }, 'signer: failed');
    return reply.code(500).send(fail('signer_error', 'the signer failed on this request; see its log'));
  });

  app.get('/v1/health', async () => ({ status: 'ok' }));

  app.post('/v1/evm/sign', async (request, reply) => {
    const raw = typeof request.body === 'string' ? request.body : '';
    try {
      verifier.verify(raw, request.headers as Record<string, string>, { jsonParse: false });
    } catch (error) {
      request.log.warn({ reason: (error as Error).message }, 'signer: refused an unauthenticated request');
      return reply.code(401).send(fail('unauthenticated', 'the request is not signed with the service secret, or its timestamp is not recent'));
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return reply.code(400).send(fail('invalid_request', 'the body is not JSON'));
    }
    if (!Value.Check(EvmSignBody, body)) {
      const problems = [...Value.Errors(EvmSignBody, body)].map((e) => `${e.instancePath || '/'} ${e.message}`);
      return reply.code(400).send(fail('invalid_request', problems.join('; ')));
    }
    const asked = requestOf(body);
    if ('invalid' in asked) return reply.code(400).send(fail('invalid_request', asked.invalid));
    const rules = setup.rules.get(asked.network);
    const account = asked.kind === 'sweep' ? setup.deposits.account(asked.index) : setup.gas;
    // In this order: the policy, the day's budget, then the nonce: a nonce is remembered only for what is signed.
    const refusal =
      evmRefusal(asked, rules, (index) => setup.deposits.address(index)) ??
      (budget.take(asked.network, worstCost(asked), rules!.maxFeesPerDayWei) ? null : `${asked.network}'s fees for today would pass max_fees_per_day (${rules!.maxFeesPerDayWei} wei)`) ??
      nonces.claim(rules!.chainId, account.address, asked.transaction);
    const about = { network: asked.network, kind: asked.kind, index: asked.index, to: asked.transaction.to, value: body.transaction.value, nonce: asked.transaction.nonce };
    if (refusal !== null) {
      request.log.warn({ ...about, refusal }, 'signer: refused a request its policy does not allow');
      return reply.code(403).send(fail('refused', refusal));
    }
    const signed = await account.signTransaction({ type: 'eip1559', chainId: rules!.chainId, ...asked.transaction });
    const answer: EvmSigned = { raw: signed, hash: keccak256(signed), from: account.address };
    request.log.info({ ...about, from: answer.from, hash: answer.hash }, 'signer: signed');
    return answer;
  });
  return app;
}
