import { randomUUID } from 'node:crypto';
import type { Caller } from '../../src/domain/access.js';
import { DEFAULT_SETTINGS } from '../../src/domain/organizations.js';

/** A sandbox caller of an active organization with default settings, for calling use cases directly. */
export function sandboxCaller(organizationId: string, keyId: string = randomUUID()): Caller {
  return {
    keyId,
    organizationId,
    organizationStatus: 'active',
    organizationSettings: DEFAULT_SETTINGS,
    mode: 'test',
    scopes: [],
    expiresAt: null,
    revokedAt: null,
    rateLimitRps: 1000,
  };
}
