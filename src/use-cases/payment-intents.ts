import { randomUUID } from 'node:crypto';
import type { Caller } from '../domain/access.js';
import type { Catalog } from '../domain/catalog.js';
import { DomainError } from '../domain/errors.js';
import { checkDecimals, parseAmount, type Decimal } from '../domain/money.js';
import {
  generateRefCode,
  MAX_CURRENCIES,
  MAX_DESCRIPTION,
  MAX_EXTERNAL_REF,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE,
  USDT_NON_SOLANA_FLOOR,
} from '../domain/payment-intents.js';
import type { CustodyProvider } from '../providers/custody/index.js';
import type { Sql } from '../store/database.js';
import type { PageRequest } from '../store/pagination.js';
import * as intents from '../store/payment-intents.js';
import type { IntentAddressRow, IntentRow } from '../store/payment-intents.js';
import { ensureProfile, profileFilter } from '../store/profiles.js';
import type { Tenant } from '../store/tenancy.js';

export interface CreateIntentInput {
  amount: string | number;
  currencies: string[];
  external_ref?: string | null;
  description?: string | null;
  metadata?: Record<string, string | number | boolean | null> | null;
}

/** An intent with its deposit addresses in expansion order: what the envelope is made of. */
export type IntentView = IntentRow & { addresses: IntentAddressRow[] };

const REF_CODE_ATTEMPTS = 8;

/** One intent of the tenant with its addresses; `lock` holds the intent row for the caller's transaction. */
export async function loadIntent(sql: Sql, tenant: Tenant, id: string, lock = false): Promise<IntentView | null> {
  const intent = await intents.findIntent(sql, tenant, id, lock);
  if (!intent) return null;
  const addresses = await intents.intentAddresses(sql, [id]);
  return { ...intent, addresses: addresses.get(id)! };
}
const tenantOf = (caller: Caller): Tenant => ({ organizationId: caller.organizationId, mode: caller.mode });

export function checkExternalRef(externalRef: string | null | undefined): string | null {
  if (externalRef === null || externalRef === undefined) return null;
  if (externalRef.length === 0 || externalRef.length > MAX_EXTERNAL_REF) {
    throw new DomainError('invalid_request', `external_ref must be 1 to ${MAX_EXTERNAL_REF} characters.`, 'external_ref');
  }
  return externalRef;
}

function checkMetadata(metadata: CreateIntentInput['metadata']): void {
  if (!metadata) return;
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_KEYS) {
    throw new DomainError('invalid_request', `metadata holds at most ${MAX_METADATA_KEYS} keys.`, 'metadata');
  }
  for (const [key, value] of entries) {
    if (value !== null && String(value).length > MAX_METADATA_VALUE) {
      throw new DomainError('invalid_request', `metadata values hold at most ${MAX_METADATA_VALUE} characters.`, `metadata.${key}`);
    }
  }
}

export class PaymentIntents {
  constructor(
    private readonly catalog: Catalog,
    private readonly custodyFor: (mode: Tenant['mode']) => CustodyProvider,
  ) {}

  /** Validates, expands every currency to its networks, mints the addresses and stores it all in `tx`. */
  async create(tx: Sql, caller: Caller, input: CreateIntentInput): Promise<IntentView> {
    const amount = parseAmount(input.amount, 'amount');
    const pairs = this.expand(caller, input.currencies, amount);
    const externalRef = checkExternalRef(input.external_ref);
    if (input.description && input.description.length > MAX_DESCRIPTION) {
      throw new DomainError('invalid_request', `description holds at most ${MAX_DESCRIPTION} characters.`, 'description');
    }
    checkMetadata(input.metadata);

    const tenant = tenantOf(caller);
    const id = randomUUID();
    const profileId = externalRef === null ? null : await ensureProfile(tx, tenant.organizationId, tenant.mode, externalRef);
    const custody = this.custodyFor(tenant.mode);
    // Asked before anything is written: a live provider failure (503) leaves nothing behind.
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

    const addresses = pairs.map((pair, position) => ({
      id: randomUUID(),
      payment_intent_id: id,
      asset: pair.asset,
      network: pair.network,
      address: minted[position]!.address,
      memo: minted[position]!.memo,
    }));
    let intent: IntentRow | null = null;
    for (let attempt = 0; intent === null; attempt++) {
      if (attempt === REF_CODE_ATTEMPTS) throw new Error('could not draw a free ref_code');
      intent = await intents.insertIntent(
        tx,
        {
          id,
          organization_id: tenant.organizationId,
          mode: tenant.mode,
          profile_id: profileId,
          external_ref: externalRef,
          ref_code: generateRefCode(),
          amount: amount.toFixed(),
          currency: input.currencies[0]!,
          currencies: input.currencies,
          description: input.description ?? null,
          metadata: input.metadata ?? null,
          ttl_seconds: caller.organizationSettings.intent_ttl_seconds,
        },
        addresses,
      );
    }
    return { ...intent, addresses };
  }

  /** Newest first; an external_ref that never was used lists nothing. */
  async list(sql: Sql, tenant: Tenant, externalRef: string | undefined, page: PageRequest) {
    const profileId = await profileFilter(sql, tenant, externalRef);
    if (profileId === null) return { rows: [] as IntentView[], hasMore: false };
    const result = await intents.listIntents(sql, tenant, profileId, page);
    const addresses = await intents.intentAddresses(sql, result.rows.map((r) => r.id));
    return {
      rows: result.rows.map((intent): IntentView => ({ ...intent, addresses: addresses.get(intent.id)! })),
      hasMore: result.hasMore,
    };
  }

  /** Each currency, in the caller's priority order, to each of its active networks in catalog priority order. */
  private expand(caller: Caller, currencies: string[], amount: Decimal): { asset: string; network: string }[] {
    if (currencies.length < 1 || currencies.length > MAX_CURRENCIES) {
      throw new DomainError('invalid_request', `currencies must list 1 to ${MAX_CURRENCIES} asset codes.`, 'currencies');
    }
    if (new Set(currencies).size !== currencies.length) {
      throw new DomainError('invalid_request', 'currencies lists an asset twice.', 'currencies');
    }
    const pairs: { asset: string; network: string }[] = [];
    for (const asset of currencies) {
      const networks = this.catalog.activeNetworks(caller.organizationSettings, asset);
      if (networks.length === 0) {
        throw new DomainError('catalog_invalid', `${asset} is not an asset this organization can use; see GET /capabilities.`, 'currencies');
      }
      for (const network of networks) {
        checkDecimals(amount, network.decimals, asset, 'amount');
        pairs.push({ asset, network: network.network });
      }
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
