/**
 * The tenant moved to the domain (domain/tenancy.ts); this name stays only for the files the outbound engine's
 * move rewrites (issue 35 item 1), and goes with them.
 */
export { tenantOf, type Tenant } from '../domain/tenancy.js';
