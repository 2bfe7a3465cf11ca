import { randomUUID } from 'node:crypto';
import type { Caller } from '../domain/access.js';
import type { Catalog } from '../domain/catalog.js';
import { DomainError } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import type { CustodyProvider } from '../providers/custody/index.js';
import { findAddress, insertAddresses, listAddresses, type AddressRow } from '../store/addresses.js';
import type { Sql } from '../store/database.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { ensureProfile, profileFilter } from '../store/profiles.js';
import type { Tenant } from '../store/tenancy.js';
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

/** Standalone deposit addresses: tenant-treasury (no external_ref) or per end user. */
export class Addresses {
  constructor(
    private readonly catalog: Catalog,
    private readonly custodyFor: (mode: Tenant['mode']) => CustodyProvider,
  ) {}

  async create(tx: Sql, caller: Caller, input: CreateAddressInput): Promise<AddressRow> {
    const usable = this.catalog.activeNetworks(caller.organizationSettings, input.asset).some((n) => n.network === input.network);
    if (!usable) {
      throw new DomainError(
        'catalog_invalid',
        `${input.asset} on ${input.network} is not a pair this organization can use; see GET /capabilities.`,
        this.catalog.activeNetworks(caller.organizationSettings, input.asset).length === 0 ? 'asset' : 'network',
      );
    }
    const externalRef = checkExternalRef(input.external_ref);
    const tenant: Tenant = { organizationId: caller.organizationId, mode: caller.mode };
    const id = randomUUID();
    const minted = await this.custodyFor(tenant.mode).createDepositAddress({
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      ownerKey: id,
      asset: input.asset,
      network: input.network,
      addressFormat: this.catalog.addressFormat(input.network),
    });
    const profileId = externalRef === null ? null : await ensureProfile(tx, tenant.organizationId, tenant.mode, externalRef);
    const [row] = await insertAddresses(tx, [
      {
        id,
        organization_id: tenant.organizationId,
        mode: tenant.mode,
        profile_id: profileId,
        external_ref: externalRef,
        payment_intent_id: null,
        position: 0,
        asset: input.asset,
        network: input.network,
        address: minted.address,
        memo: minted.memo,
        label: input.label ?? null,
      },
    ]);
    return row!;
  }

  async get(sql: Sql, tenant: Tenant, id: string): Promise<AddressRow> {
    const row = isUuid(id) ? await findAddress(sql, tenant, id) : null;
    if (!row || row.payment_intent_id !== null) throw new DomainError('resource_not_found', 'No address with that id.', 'id');
    return row;
  }

  async list(sql: Sql, tenant: Tenant, filters: AddressListFilters, page: PageRequest): Promise<Page<AddressRow>> {
    const profileId = await profileFilter(sql, tenant, filters.external_ref);
    if (profileId === null) return { rows: [], hasMore: false };
    return listAddresses(sql, tenant, { profileId, asset: filters.asset, network: filters.network }, page);
  }
}
