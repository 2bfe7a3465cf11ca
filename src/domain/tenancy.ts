import type { KeyMode } from './api-keys.js';

/** Every partner-owned row belongs to one organization and one mode; every query filters on both. */
export interface Tenant {
  organizationId: string;
  mode: KeyMode;
}

/** The tenant of anything that carries one (an authenticated caller, a prepared operation). */
export const tenantOf = (owner: Tenant): Tenant => ({ organizationId: owner.organizationId, mode: owner.mode });
