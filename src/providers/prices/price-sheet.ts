import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { Catalog } from '../../domain/catalog.js';
import type { PriceSnapshot } from '../../domain/price-snapshot.js';
import { Decimal } from '../../domain/money.js';

/** Greater than zero (a zero price would value holdings at nothing), plain digits, bounded length. */
const PositiveDecimalString = Type.String({ pattern: '^(0\\.[0-9]*[1-9][0-9]*|[1-9][0-9]{0,29}(\\.[0-9]+)?)$', maxLength: 64 });
const AssetCode = Type.String({ pattern: '^[A-Z0-9]{2,10}$' });
const FiatCode = Type.String({ pattern: '^[A-Z]{3}$' });

/** The JSON both price sources read: the shipped rate sheet and a price feed's answer. */
export const PriceSheetSchema = Type.Object(
  {
    usd: Type.Record(AssetCode, PositiveDecimalString, {
      additionalProperties: false,
      description: 'USD price of one unit of each asset.',
    }),
    fx: Type.Record(FiatCode, PositiveDecimalString, { additionalProperties: false, description: 'Units of each fiat per 1 USD.' }),
    pegs: Type.Optional(
      Type.Record(AssetCode, FiatCode, { additionalProperties: false, description: 'Assets redeemable 1:1 for a fiat.' }),
    ),
  },
  { additionalProperties: false },
);

export type PriceSheet = Static<typeof PriceSheetSchema>;

/** What is wrong with a parsed sheet; empty when it is usable. */
export function priceSheetProblems(raw: unknown): string[] {
  const problems = [...Value.Errors(PriceSheetSchema, raw)].map((e) => `${e.instancePath || '/'} ${e.message}`);
  if (problems.length > 0) return problems;
  const usdRate = (raw as PriceSheet).fx.USD;
  // Prices are quoted in USD, so any other USD rate would silently scale every USD valuation.
  if (usdRate !== undefined && !new Decimal(usdRate).eq(1)) problems.push(`/fx/USD must be 1 (prices are in USD), got ${usdRate}`);
  return problems;
}

/**
 * What a sheet lacks to value everything the catalog lists: a price per asset, per network's native asset (which
 * pays the network fee: a token payout's fee cap is its quoted fee in the native asset), and a rate per fiat.
 */
export function catalogCoverageProblems(sheet: PriceSheet, catalog: Catalog): string[] {
  const problems: string[] = [];
  for (const asset of catalog.data.assets) if (sheet.usd[asset.code] === undefined) problems.push(`/usd has no price for ${asset.code}`);
  const assets = new Set(catalog.data.assets.map((asset) => asset.code));
  for (const network of catalog.data.networks) {
    const native = network.native_asset;
    if (assets.has(native) || sheet.usd[native] !== undefined) continue;
    problems.push(`/usd has no price for ${native} (the native asset of ${network.code})`);
    assets.add(native);
  }
  for (const fiat of catalog.data.fiat_currencies) if (sheet.fx[fiat.code] === undefined) problems.push(`/fx has no rate for ${fiat.code}`);
  return problems;
}

/** The sheet as a snapshot dated `fetchedAt`; frozen, since every caller shares it. */
export function snapshotOf(sheet: PriceSheet, fetchedAt: Date): PriceSnapshot {
  return Object.freeze({
    fetchedAt,
    usd: Object.freeze({ ...sheet.usd }),
    fx: Object.freeze({ ...sheet.fx }),
    pegs: Object.freeze({ ...(sheet.pegs ?? {}) }),
  });
}
