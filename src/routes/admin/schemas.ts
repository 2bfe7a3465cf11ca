import { Type, type Static } from 'typebox';
import { SCOPES, type Scope as ScopeName } from '../../domain/scopes.js';
import { ORGANIZATION_STATUSES } from '../../domain/organizations.js';
import { CodeText, iso, isoOrNull, NullableTimestamp, PathId, RequestText, Timestamp, Uuid } from '../../http/schemas.js';
import type { ApiKeyRow, OrganizationRow } from '../../use-cases/operator.js';

export const OrganizationStatus = Type.Enum(ORGANIZATION_STATUSES);
const Pair = Type.Object({ asset: CodeText('Asset code.'), network: CodeText('Network code.') }, { additionalProperties: false });

export const Organization = Type.Object({
  id: Uuid,
  object: Type.Literal('organization'),
  name: Type.String(),
  status: OrganizationStatus,
  settings: Type.Object({
    intent_ttl_seconds: Type.Integer(),
    disabled_pairs: Type.Array(Pair),
  }),
  created_at: Timestamp,
});

export const CreateOrganizationBody = Type.Object(
  {
    name: RequestText(200, { minLength: 1 }),
    status: Type.Optional(OrganizationStatus),
  },
  { additionalProperties: false },
);

export const UpdateOrganizationBody = Type.Object(
  {
    name: Type.Optional(RequestText(200, { minLength: 1 })),
    status: Type.Optional(OrganizationStatus),
    settings: Type.Optional(
      Type.Object(
        {
          intent_ttl_seconds: Type.Optional(Type.Integer({ description: 'Intent lifetime, 1 s to 30 days.' })),
          disabled_pairs: Type.Optional(Type.Array(Pair, { description: 'Replaces the whole list.' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

// Typed as a string too, so a non-string is a wrong type (422) and only an unknown string is a value not allowed (400).
export const Scope = Type.Enum(SCOPES, { type: 'string' });
export const KeyMode = Type.Union([Type.Literal('test'), Type.Literal('live')]);

export const ApiKey = Type.Object({
  id: Uuid,
  object: Type.Literal('api_key'),
  key: Type.Optional(Type.String({ description: 'The secret: present only in the response that created it.' })),
  organization_id: Uuid,
  key_prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
  mode: KeyMode,
  scopes: Type.Array(Scope),
  expires_at: NullableTimestamp,
  rate_limit_rps: Type.Integer(),
  revoked_at: NullableTimestamp,
  created_at: Timestamp,
});

export const CreateApiKeyBody = Type.Object(
  {
    mode: KeyMode,
    expires_at: Type.Optional(Type.Union([RequestText(40, { format: 'date-time' }), Type.Null()])),
    scopes: Type.Optional(Type.Array(Scope, { description: 'Default: every scope.' })),
    rate_limit_rps: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'Default 25 (test) or 100 (live).' })),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: PathId });

export function presentOrganization(row: OrganizationRow): Static<typeof Organization> {
  return { id: row.id, object: 'organization', name: row.name, status: row.status, settings: row.settings, created_at: iso(row.created_at) };
}

export function presentApiKey(row: ApiKeyRow & { key?: string }): Static<typeof ApiKey> {
  return {
    id: row.id,
    object: 'api_key',
    ...(row.key === undefined ? {} : { key: row.key }),
    organization_id: row.organization_id,
    key_prefix: row.key_prefix,
    mode: row.mode,
    scopes: row.scopes as ScopeName[],
    expires_at: isoOrNull(row.expires_at),
    rate_limit_rps: row.rate_limit_rps,
    revoked_at: isoOrNull(row.revoked_at),
    created_at: iso(row.created_at),
  };
}
