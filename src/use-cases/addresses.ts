import { randomUUID } from 'node:crypto';
import type { Caller } from '../domain/access.js';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { externalRefFilter, type ExternalRef } from '../domain/identifiers.js';
import { DomainError, notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import type { CustodyProvider, DepositAddress } from '../custody/index.js';
import { findAddress, insertAddress, listAddresses, type AddressRow } from '../store/addresses.js';
import type { Sql } from '../store/database.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { ensureProfile, profileFilter } from '../store/profiles.js';
import { tenantOf, type Tenant } from '../domain/tenancy.js';
import type { Answer, Once, Operations } from './once.js';
import { checkExternalRef } from './payment-intents.js';

export interface CreateAddressInput {
  asset: string;
  network: string;
  external_ref?: string;
  label?: string;
}

export interface AddressListFilters {
  external_ref?: string;
  asset?: string;
  network?: string;
}

/** A validated request whose address custody has already minted. */
export interface PreparedAddress {
  id: string;
  tenant: Tenant;
  input: CreateAddressInput;
  externalRef: ExternalRef | null;
  minted: DepositAddress;
}

/** Standalone deposit addresses: tenant-treasury (no external_ref) or per end user. */
export class Addresses {
  constructor(
    private readonly catalog: Catalog,
    private readonly custodyFor: (mode: Tenant['mode']) => CustodyProvider,
    private readonly clock: Clock,
    private readonly operations: Operations,
  ) {}

  /** POST /addresses, once per idempotency key: the custody call outside any transaction, then the row with the key's claim. */
  create(caller: Caller, input: CreateAddressInput, once: Once<AddressRow>): Promise<Answer> {
    return this.operations.once(once, async () => {
      const prepared = await this.prepare(caller, input);
      return async (tx) => ({ value: await this.record(tx, prepared) });
    });
  }

  /** Step one, outside any transaction: validation and the custody call. */
  private async prepare(caller: Caller, input: CreateAddressInput): Promise<PreparedAddress> {
    const networks = this.catalog.activeNetworks(caller.organizationSettings, caller.mode, input.asset);
    if (!networks.some((n) => n.network === input.network)) {
      throw new DomainError(
        'catalog_invalid',
        `${input.asset} on ${input.network} is not a pair this organization can use; see GET /capabilities.`,
        networks.length === 0 ? 'asset' : 'network',
      );
    }
    const externalRef = checkExternalRef(input.external_ref);
    const tenant = tenantOf(caller);
    const id = randomUUID();
    const minted = await this.custodyFor(tenant.mode).createDepositAddress({
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      ownerKey: id,
      asset: input.asset,
      network: input.network,
      addressFormat: this.catalog.addressFormat(input.network),
    });
    return { id, tenant, input, externalRef, minted };
  }

  /** Step two, in the caller's transaction: the profile (created on first use) and the address row. */
  private async record(tx: Sql, prepared: PreparedAddress): Promise<AddressRow> {
    const { tenant, externalRef } = prepared;
    const profileId = externalRef === null ? null : await ensureProfile(tx, tenant.organizationId, tenant.mode, externalRef);
    return insertAddress(tx, {
      id: prepared.id,
      organization_id: tenant.organizationId,
      mode: tenant.mode,
      profile_id: profileId,
      external_ref: externalRef,
      asset: prepared.input.asset,
      network: prepared.input.network,
      address: prepared.minted.address,
      memo: prepared.minted.memo,
      label: prepared.input.label ?? null,
      created_at: this.clock.now(),
    });
  }

  async get(sql: Sql, tenant: Tenant, id: string): Promise<AddressRow> {
    const row = isUuid(id) ? await findAddress(sql, tenant, id) : null;
    if (!row || row.payment_intent_id !== null) throw notFound('address', 'address_id');
    return row;
  }

  async list(sql: Sql, tenant: Tenant, filters: AddressListFilters, page: PageRequest): Promise<Page<AddressRow>> {
    const profileId = await profileFilter(sql, tenant, externalRefFilter(filters.external_ref));
    if (profileId === null) return { rows: [], hasMore: false };
    return listAddresses(sql, tenant, { profileId, asset: filters.asset, network: filters.network }, page);
  }
}
