import { DomainError } from '../domain/errors.js';
import { MAX_DERIVATION_INDEX } from '../providers/chains/account-xpub.js';

/** The largest start_index a claim takes (BIP-32's last unhardened index), as the operator API's schema states it. */
export { MAX_DERIVATION_INDEX };
import type { Database } from '../store/database.js';
import { claimXpub, nextDerivationIndex, xpubClaims, type KeyFamily, type XpubClaim } from '../store/derivation.js';

/** The xpub each live family is configured with, by fingerprint (null: the family is not live here). */
export type ConfiguredXpubs = Readonly<Record<KeyFamily, { fingerprint: string } | null>>;

export interface XpubClaimRequest {
  family: KeyFamily;
  start_index?: number;
  first_use?: boolean;
}

export interface FamilyClaimState {
  family: KeyFamily;
  /** The configured xpub's fingerprint. */
  fingerprint: string;
  /** Whether this database may hand out its addresses; when not, live addresses of the family are refused. */
  claimed: boolean;
  claim: Omit<XpubClaim, 'family' | 'fingerprint' | 'next_index'> | null;
  next_index: number;
}

function configured(xpubs: ConfiguredXpubs, family: KeyFamily): { fingerprint: string } {
  const xpub = xpubs[family];
  if (!xpub) throw new DomainError('parameter_invalid', `Live ${family.toUpperCase()} is not configured on this deployment: there is no xpub to claim.`, 'family');
  return xpub;
}

/**
 * The operator's declaration that this database hands out the configured xpub's addresses of `family` from
 * `start_index` on (`first_use`: from 0, the xpub never having been used by any database). Repeated, it only ever
 * moves the next index up (docs/live-evm.md, "One xpub, one database").
 */
export async function claimConfiguredXpub(db: Database, xpubs: ConfiguredXpubs, request: XpubClaimRequest): Promise<FamilyClaimState> {
  const { fingerprint } = configured(xpubs, request.family);
  if ((request.start_index === undefined) === (request.first_use !== true)) {
    throw new DomainError('parameter_invalid', 'Give start_index (past every index another database may have used) or first_use: true, not both.', 'start_index');
  }
  if (request.start_index !== undefined && request.start_index > MAX_DERIVATION_INDEX) {
    throw new DomainError('parameter_invalid', `start_index must be at most ${MAX_DERIVATION_INDEX}.`, 'start_index');
  }
  await claimXpub(db, { family: request.family, fingerprint }, request.start_index ?? 0, request.first_use ? 'first_use' : 'declared');
  return (await claimStates(db, xpubs)).find((s) => s.family === request.family)!;
}

/** Each configured family's xpub and whether this database claimed it. */
export async function claimStates(db: Database, xpubs: ConfiguredXpubs): Promise<FamilyClaimState[]> {
  const states: FamilyClaimState[] = [];
  for (const family of ['evm', 'tron'] as const) {
    const xpub = xpubs[family];
    if (!xpub) continue;
    const claims = await xpubClaims(db, family);
    const mine = claims.find((c) => c.fingerprint === xpub.fingerprint);
    states.push({
      family,
      fingerprint: xpub.fingerprint,
      claimed: mine !== undefined,
      claim: mine ? { how: mine.how, start_index: mine.start_index, claimed_at: mine.claimed_at } : null,
      next_index: await nextDerivationIndex(db, family),
    });
  }
  return states;
}
