import { randomUUID } from 'node:crypto';
import type { Caller } from '../domain/access.js';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { checkDecimals, checkExactAsNumber, Decimal, parseAmount } from '../domain/money.js';
import { externalRef, externalRefFilter, type ExternalRef } from '../domain/identifiers.js';
import {
  generateRefCode,
  MAX_CURRENCIES,
  MAX_DESCRIPTION,
  MAX_METADATA_KEY,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE,
  REF_CODE_DRAWS,
  refCodeHeldUntil,
  USDT_NON_SOLANA_FLOOR,
} from '../domain/payment-intents.js';
import type { CustodyProvider } from '../custody/index.js';
import { CoalescedReads } from '../store/coalesced-reads.js';
import type { Sql } from '../store/database.js';
import type { PageRequest } from '../store/pagination.js';
import * as intents from '../store/payment-intents.js';
import type { NewIntent, NewIntentAddress } from '../store/payment-intents.js';
import type { AnswerClaim } from '../store/idempotency.js';
import type { Answer, Once, Operations } from './once.js';
import { ensureProfile, profileFilter } from '../store/profiles.js';
import { tenantOf, type Tenant } from '../domain/tenancy.js';

export interface CreateIntentInput {
  amount: string | number;
  currencies: string[];
  external_ref?: string | null;
  description?: string | null;
  metadata?: Record<string, string | number | boolean | null> | null;
}

/** An intent with its deposit addresses in expansion order and its refunds: what the envelope is made of. */
export type IntentView = intents.IntentWithParts;


/** An optional external_ref as sent, under the identifier rule (src/domain/identifiers.ts); null when absent. */
export function checkExternalRef(value: string | null | undefined): ExternalRef | null {
  return value === null || value === undefined ? null : externalRef(value);
}

function checkMetadata(metadata: CreateIntentInput['metadata']): void {
  if (!metadata) return;
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_KEYS) {
    throw new DomainError('invalid_request', `metadata holds at most ${MAX_METADATA_KEYS} keys.`, 'metadata');
  }
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > MAX_METADATA_KEY) {
      throw new DomainError('invalid_request', `metadata keys are 1 to ${MAX_METADATA_KEY} characters.`, `metadata.${key}`);
    }
    if (value !== null && String(value).length > MAX_METADATA_VALUE) {
      throw new DomainError('invalid_request', `metadata values hold at most ${MAX_METADATA_VALUE} characters.`, `metadata.${key}`);
    }
  }
}

/** A validated intent whose addresses custody has already minted: everything but the rows. */
export interface PreparedIntent {
  id: string;
  tenant: Tenant;
  externalRef: ExternalRef | null;
  amount: Decimal;
  currencies: string[];
  description: string | null;
  metadata: CreateIntentInput['metadata'];
  ttlSeconds: number;
  addresses: NewIntentAddress[];
}

/**
 * Reads of single intents coalesced (store/coalesced-reads.ts): at most this many statements at once per process,
 * the rest queued behind them and sent together. Measured in `npm run bench` (BENCHMARKS.md, issue 24).
 */
const INTENT_READS_IN_FLIGHT = 1;
const INTENT_READS_PER_STATEMENT = 64;
/** Far above the statement's milliseconds: only a stuck connection or a stalled server takes this long. */
const INTENT_READS_STALL_MS = 1_000;

export class PaymentIntents {
  private readonly reads: CoalescedReads<intents.IntentKey, IntentView>;

  constructor(
    db: Sql,
    private readonly catalog: Catalog,
    private readonly custodyFor: (mode: Tenant['mode']) => CustodyProvider,
    private readonly clock: Clock,
    private readonly operations: Operations,
    private readonly drawRefCode: () => string = generateRefCode,
  ) {
    this.reads = new CoalescedReads((keys) => intents.findIntentsWithAddresses(db, keys), INTENT_READS_IN_FLIGHT, INTENT_READS_PER_STATEMENT, INTENT_READS_STALL_MS);
  }

  /**
   * POST /payment-intents, once per idempotency key: prepared outside any transaction (`prepare`), then recorded
   * with the key's claim and its answer in one statement (`record`).
   */
  create(caller: Caller, input: CreateIntentInput, once: Once<IntentView>): Promise<Answer> {
    return this.operations.inOneStatement(once, async () => {
      const prepared = await this.prepare(caller, input);
      return (sql, claim) => this.record(sql, prepared, claim);
    });
  }

  /**
   * Step one of creation, outside any transaction: validates, expands every currency to its networks and
   * asks custody for the addresses. A custody failure therefore leaves no row and holds no transaction open.
   */
  async prepare(caller: Caller, input: CreateIntentInput): Promise<PreparedIntent> {
    const amount = parseAmount(input.amount, 'amount');
    checkExactAsNumber(amount, 'amount');
    const pairs = this.expand(caller, input.currencies, amount);
    const externalRef = checkExternalRef(input.external_ref);
    if (input.description && input.description.length > MAX_DESCRIPTION) {
      throw new DomainError('invalid_request', `description holds at most ${MAX_DESCRIPTION} characters.`, 'description');
    }
    checkMetadata(input.metadata);

    const tenant = tenantOf(caller);
    const id = randomUUID();
    const custody = this.custodyFor(tenant.mode);
    const minted = await Promise.all(
      pairs.map((pair) =>
        custody.createDepositAddress({
          organizationId: tenant.organizationId,
          mode: tenant.mode,
          ownerKey: id,
          asset: pair.asset,
          network: pair.network,
          addressFormat: this.catalog.addressFormat(pair.network),
        }),
      ),
    );
    return {
      id,
      tenant,
      externalRef,
      amount,
      currencies: input.currencies,
      description: input.description ?? null,
      metadata: input.metadata ?? null,
      ttlSeconds: caller.organizationSettings.intent_ttl_seconds,
      addresses: pairs.map((pair, position) => ({
        id: randomUUID(),
        asset: pair.asset,
        network: pair.network,
        address: minted[position]!.address,
        memo: minted[position]!.memo,
      })),
    };
  }

  /**
   * Step two: the profile, a free ref_code, and in one statement the intent, its addresses and the
   * idempotency record holding `answer(view)`, the response the intent gives. False: another request holds
   * the idempotency key, and nothing of this intent was written.
   */
  async record(sql: Sql, prepared: PreparedIntent, answer: (view: IntentView) => AnswerClaim): Promise<boolean> {
    const { tenant } = prepared;
    // Committed on its own: a profile is created on first use, and an end user's first intent is that use.
    const profileId = prepared.externalRef === null ? null : await ensureProfile(sql, tenant.organizationId, tenant.mode, prepared.externalRef);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + prepared.ttlSeconds * 1000);
    for (let draw = 0; draw < REF_CODE_DRAWS; draw++) {
      const intent: NewIntent = {
        id: prepared.id,
        organization_id: tenant.organizationId,
        mode: tenant.mode,
        profile_id: profileId,
        external_ref: prepared.externalRef,
        ref_code: this.drawRefCode(),
        amount: prepared.amount.toFixed(),
        currency: prepared.currencies[0]!,
        currencies: prepared.currencies,
        description: prepared.description,
        metadata: prepared.metadata ?? null,
        expires_at: expiresAt,
        created_at: now,
      };
      const view: IntentView = {
        ...intent,
        status: 'pending',
        amount_received: '0',
        deposit_count: 0,
        last_deposit: null,
        completed_at: null,
        discrepancy_acceptance: null,
        addresses: prepared.addresses.map((a) => ({ id: a.id, asset: a.asset, network: a.network, address: a.address })),
        refunds: [],
      };
      const outcome = await intents.insertIntent(sql, intent, prepared.addresses, refCodeHeldUntil(expiresAt), now, answer(view));
      if (outcome !== 'ref_code_taken') return outcome === 'written';
    }
    // Only when nearly every code is reserved at once (docs/money-in.md): a 5xx, so a retry may succeed.
    throw new Error(`no free ref_code in ${REF_CODE_DRAWS} draws`);
  }

  /** One intent of the tenant; a malformed id is its own 400, another tenant's intent a plain 404. */
  async get(tenant: Tenant, id: string): Promise<IntentView> {
    checkPaymentIntentId(id, 'payment_intent_id');
    const view = await this.reads.load({ tenant, id });
    if (!view) throw notFound('payment intent', 'payment_intent_id');
    return view;
  }

  /** Newest first; an external_ref that never was used lists nothing. */
  async list(sql: Sql, tenant: Tenant, externalRef: string | undefined, page: PageRequest) {
    const profileId = await profileFilter(sql, tenant, externalRefFilter(externalRef));
    if (profileId === null) return { rows: [] as IntentView[], hasMore: false };
    return intents.listIntents(sql, tenant, profileId, page);
  }

  /**
   * Each currency, in the caller's priority order, to each of its active networks in catalog priority order.
   * The amount must fit every currency's decimals and upper bound, and reach the catalog minimum of at least
   * one network of the primary currency (below all of them, no deposit could ever be worth collecting).
   */
  private expand(caller: Caller, currencies: string[], amount: Decimal): { asset: string; network: string }[] {
    if (currencies.length < 1 || currencies.length > MAX_CURRENCIES) {
      throw new DomainError('invalid_request', `currencies must list 1 to ${MAX_CURRENCIES} asset codes.`, 'currencies');
    }
    if (new Set(currencies).size !== currencies.length) {
      throw new DomainError('invalid_request', 'currencies lists an asset twice.', 'currencies');
    }
    const unusable = currencies.filter((asset) => this.catalog.activeNetworks(caller.organizationSettings, caller.mode, asset).length === 0);
    if (unusable.length > 0) {
      const live = caller.mode === 'live' ? ' with a live key (only networks with a configured chain watcher are live)' : '';
      throw new DomainError('catalog_invalid', `${unusable.join(', ')}: not usable by this organization${live}; see GET /capabilities.`, 'currencies');
    }
    const pairs: { asset: string; network: string }[] = [];
    for (const asset of currencies) {
      const networks = this.catalog.activeNetworks(caller.organizationSettings, caller.mode, asset);
      const max = new Decimal(this.catalog.asset(asset)!.max_amount);
      if (amount.gt(max)) {
        throw new DomainError('invalid_request', `amount is above ${max.toFixed()}, the most one ${asset} intent may ask for.`, 'amount');
      }
      for (const network of networks) {
        checkDecimals(amount, network.decimals, asset, 'amount');
        pairs.push({ asset, network: network.network });
      }
    }
    const primary = currencies[0]!;
    const minimums = this.catalog.activeNetworks(caller.organizationSettings, caller.mode, primary).map((n) => new Decimal(n.min_amount));
    const lowest = Decimal.min(...minimums);
    if (amount.lt(lowest)) {
      throw new DomainError('invalid_request', `amount is below ${lowest.toFixed()}, the smallest ${primary} deposit any of its networks accepts.`, 'amount');
    }
    if (amount.lte(USDT_NON_SOLANA_FLOOR) && pairs.some((p) => p.asset === 'USDT' && p.network !== 'solana')) {
      throw new DomainError(
        'min_usdt_amount_requires_solana',
        `USDT on networks other than Solana needs an amount above ${USDT_NON_SOLANA_FLOOR.toFixed()}.`,
        'amount',
      );
    }
    return pairs;
  }
}

/** The contract's answer to a malformed payment intent id in any path: 400 invalid_payment_intent_id naming `param`. */
export function checkPaymentIntentId(id: string, param: string): void {
  if (!isUuid(id)) throw new DomainError('invalid_payment_intent_id', 'The payment intent id must be a UUID.', param);
}
