import { Type, type Static } from 'typebox';
import type { AddressRow } from '../../store/addresses.js';
import { CodeText, ExternalRefText, iso, RequestText, Timestamp, Uuid } from '../schemas.js';

export const CreateAddressBody = Type.Object(
  {
    asset: CodeText('Asset code, e.g. USDC.'),
    network: CodeText('Lowercase network code, e.g. solana.'),
    external_ref: Type.Optional(ExternalRefText('Per-user address for this end user; omit for a tenant-treasury address.')),
    label: Type.Optional(RequestText(255, { description: 'Your own name for the address.' })),
  },
  { additionalProperties: false },
);

export const Address = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('address'),
    asset: Type.String(),
    network: Type.String(),
    address: Type.String(),
    created_at: Timestamp,
    external_ref: Type.Optional(Type.String({ description: 'Present only for per-user addresses.' })),
    memo: Type.Optional(Type.String({ description: 'Present when the network needs one.' })),
    label: Type.Optional(Type.String()),
  },
  { title: 'Address' },
);

/** Optional fields are omitted, not null, as the contract's Address resource describes them. */
export function presentAddress(row: AddressRow): Static<typeof Address> {
  return {
    id: row.id,
    object: 'address',
    asset: row.asset,
    network: row.network,
    address: row.address,
    created_at: iso(row.created_at),
    ...(row.external_ref === null ? {} : { external_ref: row.external_ref }),
    ...(row.memo === null ? {} : { memo: row.memo }),
    ...(row.label === null ? {} : { label: row.label }),
  };
}
