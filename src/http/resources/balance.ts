import { Type, type Static } from 'typebox';
import type { BalanceLine, BalanceView } from '../../use-cases/balances.js';
import { isoOrNull, NullableTimestamp } from '../schemas.js';

const FiatAmounts = Type.Record(Type.String({ pattern: '^[a-z]{3}$' }), Type.String(), {
  description: 'Lowercase fiat code → decimal string with the currency’s usual precision.',
});

const Line = Type.Object(
  {
    asset: Type.String(),
    network: Type.String(),
    amount: Type.String({ description: 'What can be spent now (available), decimal string.' }),
    reserved: Type.String({ description: 'Held by payouts in flight, decimal string; not part of amount.' }),
  },
  {
    additionalProperties: Type.String({ description: 'The amount valued in each enabled fiat (usd, pen, eur, mxn, ars, cop, dop).' }),
  },
);

const valuedAt = NullableTimestamp;

export const UserBalance = Type.Object(
  {
    object: Type.Literal('balance'),
    external_ref: Type.String(),
    valued_at: valuedAt,
    balances: Type.Array(Line),
    totals: FiatAmounts,
  },
  { title: 'UserBalance' },
);

export const TenantBalance = Type.Object(
  {
    object: Type.Literal('balance'),
    valued_at: valuedAt,
    balances: Type.Array(Line),
    totals: FiatAmounts,
    profiles_count: Type.Integer({ description: 'End-user profiles of the tenant (in this mode).' }),
  },
  { title: 'TenantBalance' },
);

function presentLine(line: BalanceLine) {
  return { asset: line.asset, network: line.network, amount: line.available.toFixed(), reserved: line.reserved.toFixed(), ...line.valuations };
}

export function presentUserBalance(externalRef: string, view: BalanceView): Static<typeof UserBalance> {
  return { object: 'balance', external_ref: externalRef, valued_at: isoOrNull(view.valuedAt), balances: view.lines.map(presentLine), totals: view.totals };
}

export function presentTenantBalance(view: BalanceView & { profilesCount: number }): Static<typeof TenantBalance> {
  return {
    object: 'balance',
    valued_at: isoOrNull(view.valuedAt),
    balances: view.lines.map(presentLine),
    totals: view.totals,
    profiles_count: view.profilesCount,
  };
}
