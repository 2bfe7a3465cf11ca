import type { KeyMode } from './api-keys.js';
import { DomainError } from './errors.js';
import type { OrganizationSettings, OrganizationStatus } from './organizations.js';
import type { Scope } from './scopes.js';

export interface Caller {
  keyId: string;
  organizationId: string;
  organizationStatus: OrganizationStatus;
  /** Read with the key, so routes that need the settings cost no second query. */
  organizationSettings: OrganizationSettings;
  mode: KeyMode;
  scopes: readonly string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  rateLimitRps: number;
}

export interface RouteAccess {
  /** The scope a key needs; none for /health and /capabilities. */
  scope?: Scope;
  /** Reachable whatever the organization's status (only GET /health). */
  anyOrganizationStatus?: boolean;
}

/** 401s: the key must be live (not revoked, not rotated away) and not past its expiry. */
export function checkCredential(caller: Caller | null, now: Date): asserts caller is Caller {
  if (!caller || caller.revokedAt) {
    // One message for a revoked, rotated-away and never-issued key: the answer tells nobody which keys exist.
    throw new DomainError('authentication_required', 'This API key does not match any active key: check it, or ask for a new one if it was revoked or rotated.');
  }
  if (caller.expiresAt && caller.expiresAt.getTime() <= now.getTime()) {
    throw new DomainError(
      'expired_credential',
      `The API key expired at ${caller.expiresAt.toISOString()}. Create a new key.`,
    );
  }
}

/**
 * Live work needs an approved (active) organization; sandbox work is also allowed while the organization
 * awaits approval, so partners can integrate first; a suspended organization is stopped in both modes.
 */
export function organizationAllows(status: OrganizationStatus, mode: KeyMode): boolean {
  return status === 'active' || (status === 'pending_verification' && mode === 'test');
}

/** 403s, in the contract's order; the organization's status as `organizationAllows` rules. */
export function checkAuthorization(caller: Caller, route: RouteAccess): void {
  if (!route.anyOrganizationStatus) {
    if (!organizationAllows(caller.organizationStatus, caller.mode)) {
      throw new DomainError(
        'account_pending_approval',
        caller.organizationStatus === 'suspended'
          ? 'This organization is suspended. Contact the operator of this service.'
          : 'This organization is pending verification: live keys work once it is approved. Sandbox keys work now.',
      );
    }
  }
  if (route.scope && !caller.scopes.includes(route.scope)) {
    throw new DomainError('forbidden_scope', `This API key lacks the "${route.scope}" scope.`);
  }
}
