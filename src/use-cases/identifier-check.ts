import type { KeyMode } from '../domain/api-keys.js';
import { escapeIdentifier, storedRefProblem, visibleForm } from '../domain/identifiers.js';
import type { Sql } from '../store/database.js';
import { profilesAfter, profilesByRef } from '../store/profiles.js';

/** Profiles read per query of the walk. */
const PAGE = 1000;
/** Problems listed in one answer; the rest are only counted (a deployment with many is one to fix in bulk). */
export const MAX_LISTED = 1000;

export interface RefProblem {
  organization_id: string;
  mode: KeyMode;
  profile_id: string;
  external_ref: string;
  /** The ref in printable ASCII (`\u{…}`), as the dashboard shows it and its search box takes it. */
  escaped: string;
  problem: string;
  /** The profile of the same organization and mode whose ref this one shows as (its NFC form, without the invisible characters), if any: two balances a reader cannot tell apart. */
  looks_like_profile_id: string | null;
}

export interface IdentifierCheck {
  profiles_checked: number;
  problems: RefProblem[];
  problems_left_out: number;
  ok: boolean;
}

/**
 * Every stored external_ref that the identifier rule (docs/conventions.md#identifiers) would refuse or normalize:
 * rows written before it. Nothing is changed: rewriting a ref could merge two end users' balances.
 */
export async function checkStoredIdentifiers(sql: Sql): Promise<IdentifierCheck> {
  const problems: Omit<RefProblem, 'looks_like_profile_id'>[] = [];
  let checked = 0;
  let leftOut = 0;
  for (let after: string | null = null; ; ) {
    const page = await profilesAfter(sql, after, PAGE);
    if (page.length === 0) break;
    checked += page.length;
    after = page.at(-1)!.id;
    for (const profile of page) {
      const problem = storedRefProblem(profile.external_ref);
      if (problem === null) continue;
      if (problems.length === MAX_LISTED) leftOut++;
      else problems.push({ ...profile, profile_id: profile.id, escaped: escapeIdentifier(profile.external_ref), problem });
    }
  }
  const twins = await profilesByRef(sql, problems.map((p) => ({ organization_id: p.organization_id, mode: p.mode, external_ref: visibleForm(p.external_ref) })));
  return {
    profiles_checked: checked,
    problems: problems.map(({ organization_id, mode, profile_id, external_ref, escaped, problem }, i) => ({
      organization_id,
      mode,
      profile_id,
      external_ref,
      escaped,
      problem,
      looks_like_profile_id: twins[i] === profile_id ? null : twins[i]!,
    })),
    problems_left_out: leftOut,
    ok: problems.length === 0,
  };
}
