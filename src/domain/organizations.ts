export const ORGANIZATION_STATUSES = ['active', 'pending_verification', 'suspended'] as const;
export type OrganizationStatus = (typeof ORGANIZATION_STATUSES)[number];

export interface AssetNetworkPair {
  asset: string;
  network: string;
}

export interface OrganizationSettings {
  /** Lifetime of a payment intent, from creation to `expires_at`. */
  intent_ttl_seconds: number;
  /** Pairs this organization may not use: hidden from its capabilities and from intent expansion. */
  disabled_pairs: AssetNetworkPair[];
}

export const DEFAULT_SETTINGS: OrganizationSettings = { intent_ttl_seconds: 3600, disabled_pairs: [] };
/** As short as one second, so that expiry can be watched in sandbox without waiting. */
export const MIN_INTENT_TTL_SECONDS = 1;
export const MAX_INTENT_TTL_SECONDS = 30 * 24 * 3600;

export function isPairDisabled(settings: OrganizationSettings, pair: AssetNetworkPair): boolean {
  return settings.disabled_pairs.some((p) => p.asset === pair.asset && p.network === pair.network);
}
