import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import type { ExternalRef } from '../domain/identifiers.js';
import { Decimal } from '../domain/money.js';
import { valueHoldings } from '../domain/valuation.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import type { Sql } from '../store/database.js';
import { holdingsOf } from '../store/ledger.js';
import { findProfileId } from '../store/profiles.js';
import type { Tenant } from '../domain/tenancy.js';
import { tenantHoldings } from '../store/tenant-totals.js';

export interface BalanceLine {
  asset: string;
  network: string;
  /** What can be spent now. */
  available: Decimal;
  /** Held by payouts in flight. */
  reserved: Decimal;
  /** The available amount in each fiat it could be valued in, lowercase code → decimal string. */
  valuations: Record<string, string>;
}

export interface BalanceView {
  valuedAt: Date | null;
  lines: BalanceLine[];
  totals: Record<string, string>;
}

/** Balances with their fiat valuation: per end user, or tenant-wide (the organization plus every profile). */
export class Balances {
  constructor(
    private readonly catalog: Catalog,
    private readonly prices: PriceSource,
    private readonly clock: Clock,
    private readonly priceMaxAgeSeconds: number,
  ) {}

  /** One end user's balances; an external_ref never used holds nothing (an empty list, not an error). */
  async ofUser(sql: Sql, tenant: Tenant, externalRef: ExternalRef): Promise<BalanceView> {
    const profileId = await findProfileId(sql, tenant.organizationId, tenant.mode, externalRef);
    return this.valued(profileId === null ? [] : await holdingsOf(sql, tenant, profileId));
  }

  async ofTenant(sql: Sql, tenant: Tenant): Promise<BalanceView & { profilesCount: number }> {
    const { holdings, profilesCount } = await tenantHoldings(sql, tenant);
    return { ...(await this.valued(holdings)), profilesCount };
  }

  private async valued(held: { asset: string; network: string; available: string; reserved: string }[]): Promise<BalanceView> {
    const snapshot = await this.prices.current();
    const lines = held.map((h) => ({ asset: h.asset, network: h.network, available: new Decimal(h.available), reserved: new Decimal(h.reserved) }));
    const valuation = valueHoldings(
      lines.map((l) => ({ asset: l.asset, network: l.network, amount: l.available })),
      snapshot,
      this.catalog.data.fiat_currencies,
      this.clock.now(),
      this.priceMaxAgeSeconds,
    );
    return {
      valuedAt: snapshot?.fetchedAt ?? null,
      lines: lines.map((line, i) => ({ ...line, valuations: valuation.lines[i]!.valuations })),
      totals: valuation.totals,
    };
  }
}
