import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; a malformed one is checked before it reaches a uuid column (which would fail the query). */
export const isUuid = (value: string) => UUID.test(value);

/**
 * A UUID derived from what an object is (a version-8, "custom", UUID over SHA-256 of the parts), for objects
 * that must get the same id however often they are created: a tenant's world account, a sandbox payout.
 */
export function derivedUuid(...parts: string[]): string {
  const hex = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
