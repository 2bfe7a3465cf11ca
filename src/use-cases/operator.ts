import { randomUUID } from 'node:crypto';
import { DEFAULT_RATE_LIMIT_RPS, generateApiKey, hashApiKey, keyPrefix, type KeyMode } from '../domain/api-keys.js';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import {
  DEFAULT_SETTINGS,
  MAX_INTENT_TTL_SECONDS,
  MIN_INTENT_TTL_SECONDS,
  type OrganizationSettings,
  type OrganizationStatus,
} from '../domain/organizations.js';
import { isScope, SCOPES } from '../domain/scopes.js';
import type { ApiKeyRow } from '../store/api-keys.js';
import * as keys from '../store/api-keys.js';
import type { Database, Sql } from '../store/database.js';
import * as orgs from '../store/organizations.js';
import type { OrganizationRow } from '../store/organizations.js';
import type { PageRequest } from '../store/pagination.js';

/** The rows the operator's verbs answer with, for those who present them (routes, pages, the CLI). */
export type { ApiKeyRow, OrganizationRow };

/** The operator's verbs, shared by the admin API and the CLI so that both enforce the same rules. */
export interface NewOrganization {
  name: string;
  status?: OrganizationStatus;
}

export interface OrganizationChanges {
  name?: string;
  status?: OrganizationStatus;
  settings?: Partial<OrganizationSettings>;
}

export interface NewApiKey {
  mode: KeyMode;
  expires_at?: string | null;
  scopes?: string[];
  rate_limit_rps?: number;
}

/** A key as just created: the only moment its secret exists outside the caller's hands. */
export type CreatedApiKey = ApiKeyRow & { key: string };

/** Cursor list names: a cursor is bound to its list, so the API and the CLI must name lists alike. */
export const ORGANIZATION_LIST = 'organizations';
export const keyList = (organizationId: string) => `keys:${organizationId}`;

export class OperatorService {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    /**
     * Told after a change to an organization or its keys has committed (caches of who a key is); the change is
     * answered once it resolves, so this instance serves a key it just created at once, even to an address locked
     * out for failed authentications.
     */
    private readonly credentialsChanged: (organizationId: string) => Promise<void> = async () => {},
  ) {}

  createOrganization(input: NewOrganization): Promise<OrganizationRow> {
    return orgs.insertOrganization(this.db, {
      id: randomUUID(),
      name: input.name,
      status: input.status ?? 'pending_verification',
      settings: DEFAULT_SETTINGS,
    });
  }

  async getOrganization(id: string): Promise<OrganizationRow> {
    const org = isUuid(id) ? await orgs.findOrganization(this.db, id) : null;
    if (!org) throw notFound('organization');
    return org;
  }

  listOrganizations(page: PageRequest) {
    return orgs.listOrganizations(this.db, page);
  }

  async updateOrganization(id: string, changes: OrganizationChanges): Promise<OrganizationRow> {
    if (changes.settings) this.checkSettings(changes.settings);
    const updated = await this.db.transaction(async (tx) => {
      const org = isUuid(id) ? await orgs.findOrganization(tx, id, true) : null;
      if (!org) throw notFound('organization');
      return orgs.updateOrganization(tx, id, {
        name: changes.name ?? org.name,
        status: changes.status ?? org.status,
        settings: { ...DEFAULT_SETTINGS, ...org.settings, ...changes.settings },
      });
    });
    await this.credentialsChanged(updated.id);
    return updated;
  }

  async createApiKey(organizationId: string, input: NewApiKey): Promise<CreatedApiKey> {
    await this.getOrganization(organizationId);
    const scopes = input.scopes ?? [...SCOPES];
    const unknown = scopes.find((s) => !isScope(s));
    if (unknown !== undefined) {
      throw new DomainError('invalid_request', `Unknown scope "${unknown}". Known scopes: ${SCOPES.join(', ')}.`, 'scopes');
    }
    const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) {
      throw new DomainError('invalid_request', 'expires_at must be an ISO 8601 date-time.', 'expires_at');
    }
    if (expiresAt && expiresAt.getTime() <= this.clock.now().getTime()) {
      throw new DomainError('invalid_request', 'expires_at must be in the future.', 'expires_at');
    }
    const created = await this.insertKey(this.db, {
      organizationId,
      mode: input.mode,
      scopes: [...new Set(scopes)],
      rateLimitRps: input.rate_limit_rps ?? DEFAULT_RATE_LIMIT_RPS[input.mode],
      expiresAt,
    });
    await this.credentialsChanged(organizationId);
    return created;
  }

  async getApiKey(id: string): Promise<ApiKeyRow> {
    const key = isUuid(id) ? await keys.findApiKey(this.db, id) : null;
    if (!key) throw notFound('API key');
    return key;
  }

  async listApiKeys(organizationId: string, page: PageRequest) {
    await this.getOrganization(organizationId);
    return keys.listApiKeys(this.db, organizationId, page);
  }

  /** A new key with the old one's mode, scopes, limit and expiry; the old one stops working at commit. */
  async rotateApiKey(id: string): Promise<CreatedApiKey> {
    const created = await this.db.transaction(async (tx) => {
      const old = isUuid(id) ? await keys.findApiKey(tx, id, true) : null;
      if (!old) throw notFound('API key');
      if (old.revoked_at) throw new DomainError('invalid_request', 'This API key is revoked and cannot be rotated.', 'id');
      // A copy of an expired key's expiry would be born expired: the operator must choose a new one.
      if (old.expires_at && old.expires_at.getTime() <= this.clock.now().getTime()) {
        throw new DomainError('invalid_request', 'This API key has expired; create a new key with a new expires_at.', 'id');
      }
      const created = await this.insertKey(tx, {
        organizationId: old.organization_id,
        mode: old.mode,
        scopes: old.scopes,
        rateLimitRps: old.rate_limit_rps,
        expiresAt: old.expires_at,
      });
      await keys.revokeApiKey(tx, old.id, created.id);
      return created;
    });
    await this.credentialsChanged(created.organization_id);
    return created;
  }

  async revokeApiKey(id: string): Promise<ApiKeyRow> {
    await this.getApiKey(id);
    const revoked = await keys.revokeApiKey(this.db, id);
    await this.credentialsChanged(revoked.organization_id);
    return revoked;
  }

  /** On an empty database: one active demo organization with a sandbox key, so a newcomer can start at once. */
  async bootstrapDemo(): Promise<{ organization: OrganizationRow; apiKey: CreatedApiKey } | null> {
    return this.db.transaction(async (tx) => {
      // Instances starting together on one empty database must create one demo organization, not several.
      await tx.query('SELECT pg_advisory_xact_lock(731845202)');
      if (await orgs.anyOrganizationExists(tx)) return null;
      const organization = await orgs.insertOrganization(tx, {
        id: randomUUID(),
        name: 'Demo organization',
        status: 'active',
        settings: DEFAULT_SETTINGS,
      });
      const apiKey = await this.insertKey(tx, {
        organizationId: organization.id,
        mode: 'test',
        scopes: [...SCOPES],
        rateLimitRps: DEFAULT_RATE_LIMIT_RPS.test,
        expiresAt: null,
      });
      return { organization, apiKey };
    });
  }

  private checkSettings(settings: Partial<OrganizationSettings>): void {
    const ttl = settings.intent_ttl_seconds;
    if (ttl !== undefined && (ttl < MIN_INTENT_TTL_SECONDS || ttl > MAX_INTENT_TTL_SECONDS)) {
      throw new DomainError(
        'invalid_request',
        `intent_ttl_seconds must be between ${MIN_INTENT_TTL_SECONDS} and ${MAX_INTENT_TTL_SECONDS}.`,
        'settings.intent_ttl_seconds',
      );
    }
    for (const pair of settings.disabled_pairs ?? []) {
      if (!this.catalog.hasPair(pair.asset, pair.network)) {
        throw new DomainError(
          'catalog_invalid',
          `${pair.asset} on ${pair.network} is not in the catalog; see GET /capabilities.`,
          'settings.disabled_pairs',
        );
      }
    }
  }

  private async insertKey(
    sql: Sql,
    input: { organizationId: string; mode: KeyMode; scopes: string[]; rateLimitRps: number; expiresAt: Date | null },
  ): Promise<CreatedApiKey> {
    const key = generateApiKey(input.mode);
    const row = await keys.insertApiKey(sql, {
      id: randomUUID(),
      organization_id: input.organizationId,
      mode: input.mode,
      key_hash: hashApiKey(key),
      key_prefix: keyPrefix(key),
      scopes: input.scopes,
      rate_limit_rps: input.rateLimitRps,
      expires_at: input.expiresAt,
    });
    return { ...row, key };
  }
}
