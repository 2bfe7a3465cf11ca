import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { cliOn } from './support/cli.js';
import { signInOperator, type Operator } from './support/dashboard.js';
import { createIntent, createTenant } from './support/partner.js';

/**
 * Refs as rows written before the identifier rule hold them (put there directly: the API refuses them now),
 * each beside the plain `user-42` it looks like, and the visible lookalikes the API accepts.
 */
const PLAIN = 'user-42';
// A BOM inside the ref: PGlite reads a text value back without a leading one (TextDecoder's BOM stripping).
const LEGACY = ['user-42\u200b', 'user-\u202e24', 'user-42 ', 'user\t42', 'user-\ufeff42', 'jose\u0301'];
const LOOKALIKES = ['\uff55ser-42', 'us\u0435r-42'];

let t: TestApp;
let operator: Operator;
let tenant: Tenant;
/** Intent id per ref. */
const intents = new Map<string, string>();
/** Profile id per ref. */
const profiles = new Map<string, string>();

beforeAll(async () => {
  t = await startTestApp();
  operator = await signInOperator(t);
  tenant = await createTenant(t);
  for (const ref of [PLAIN, ...LOOKALIKES, ...LEGACY]) {
    // A legacy ref: made with a placeholder the rule accepts, then set to the ref as an older version stored it.
    const placeholder = LEGACY.includes(ref) ? `placeholder-${randomUUID()}` : ref;
    const intent = await createIntent(t, tenant.key, { external_ref: placeholder });
    const [profile] = await t.db.query<{ id: string }>(
      'UPDATE profiles SET external_ref = $1 WHERE organization_id = $2 AND external_ref = $3 RETURNING id',
      [ref, tenant.organizationId, placeholder],
    );
    await t.db.query('UPDATE payment_intents SET external_ref = $1 WHERE id = $2', [ref, intent.id]);
    intents.set(ref, intent.id);
    profiles.set(ref, profile!.id);
  }
});
afterAll(() => t.close());

/** What the object page of the ref's intent shows as its external_ref. */
async function shownRef(ref: string): Promise<string> {
  const page = await operator.get(`/admin/objects/payment_intent/${intents.get(ref)}`);
  expect(page.statusCode).toBe(200);
  return /<dt>external_ref<\/dt><dd>(.*?)<\/dd>/s.exec(page.body)![1]!;
}

describe('the dashboard shows identifiers so that lookalikes are distinguishable', () => {
  it('each ref renders differently from user-42 and from every other, isolated in <bdi>, with no raw invisible or bidi character', async () => {
    const shown = await Promise.all([PLAIN, ...LOOKALIKES, ...LEGACY].map(shownRef));
    expect(new Set(shown).size).toBe(shown.length);
    for (const markup of shown) {
      expect(markup).toMatch(/^<bdi class="identifier">/);
      expect(markup).not.toMatch(/[\u200b\u202e\ufeff\t]/);
    }
    expect(shown[0]).toBe('<bdi class="identifier">user-42</bdi>');
  });

  it('an invisible or bidi character shows as its code point, a lookalike letter is marked, and the ref is shown escaped', async () => {
    expect(await shownRef('user-42\u200b')).toContain('<mark class="invisible" title="U+200B">U+200B</mark>');
    expect(await shownRef('user-42\u200b')).toContain('<code class="escaped"');
    expect(await shownRef('user-42\u200b')).toContain('user-42\\u{200B}</code>');
    expect(await shownRef('user-42 ')).toContain('user-42\\u{20}</code>');
    expect(await shownRef('us\u0435r-42')).toContain('<mark title="U+0435">\u0435</mark>');
    expect(await shownRef('jose\u0301')).toContain('jose\\u{301}</code>');
  });

  it("the organization's intents list shows them the same way", async () => {
    const list = (await operator.get(`/admin/organizations/${tenant.organizationId}/test/intents`)).body;
    expect(list).toContain('<mark class="invisible" title="U+202E">U+202E</mark>');
    expect(list).not.toContain('\u202e');
  });
});

describe("the dashboard's search finds any stored ref", () => {
  const searchFor = (q: string) => operator.get(`/admin/search?q=${encodeURIComponent(q)}`);

  it('each ref, as the dashboard escapes it, opens its own intent; as stored (a trailing space, a TAB, a BOM included) it is found', async () => {
    for (const ref of [PLAIN, ...LOOKALIKES, ...LEGACY]) {
      const escaped = /<code class="escaped"[^>]*>(.*?)<\/code>/.exec(await shownRef(ref))?.[1]?.replaceAll('&#39;', "'") ?? ref;
      const exact = await searchFor(escaped);
      expect(exact.headers.location, escaped).toBe(`/admin/objects/payment_intent/${intents.get(ref)}`);
      // As stored, it may also mean another ref (`user-42 ` trimmed is `user-42`): then both are listed.
      const raw = await searchFor(ref);
      const opened = raw.statusCode === 303 ? raw.headers.location : null;
      expect(opened ?? raw.body, JSON.stringify(ref)).toContain(`/admin/objects/payment_intent/${intents.get(ref)}`);
    }
  });

  it('a ref typed in NFD finds the one stored in NFC, and surrounding spaces of a pasted ref are ignored', async () => {
    const nfc = 'caf\u00e9-7';
    const intent = await createIntent(t, tenant.key, { external_ref: nfc });
    for (const q of ['cafe\u0301-7', ` ${nfc} `]) expect((await searchFor(q)).headers.location, q).toBe(`/admin/objects/payment_intent/${intent.id}`);
  });
});

describe('connect-payments identifiers check', () => {
  const cli = cliOn(() => t);

  it('lists every stored ref that is not NFC or breaks the rule, with organization, mode and profile, and exits 1; accepted refs are not listed', async () => {
    const run = await cli('identifiers', 'check', '--json');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('break the identifier rule');
    const answer = JSON.parse(run.stdout) as { ok: boolean; problems: { profile_id: string; organization_id: string; mode: string; escaped: string; problem: string; looks_like_profile_id: string | null }[] };
    expect(answer.ok).toBe(false);
    const ours = answer.problems.filter((p) => p.organization_id === tenant.organizationId);
    expect(ours.map((p) => p.profile_id).sort()).toEqual(LEGACY.map((ref) => profiles.get(ref)).sort());
    expect(ours.find((p) => p.profile_id === profiles.get('user-42\u200b'))).toEqual({
      organization_id: tenant.organizationId,
      mode: 'test',
      profile_id: profiles.get('user-42\u200b'),
      external_ref: 'user-42\u200b',
      escaped: 'user-42\\u{200B}',
      problem: 'contains U+200B, a format character (invisible, or a bidi control), at character 8',
      looks_like_profile_id: profiles.get(PLAIN),
    });
    expect(ours.find((p) => p.profile_id === profiles.get('jose\u0301'))!.problem).toBe('is not NFC: as the API now reads it, it is jos\\u{E9}');
  });

  it('prints one line a ref, escaped, never the raw characters; and changes nothing', async () => {
    const run = await cli('identifiers', 'check');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${tenant.organizationId} test profile ${profiles.get('user-\u202e24')} "user-\\u{202E}24": contains U+202E`);
    expect(run.stdout).not.toMatch(/[\u200b\u202e\ufeff\t]/);
    const [row] = await t.db.query<{ external_ref: string }>('SELECT external_ref FROM profiles WHERE id = $1', [profiles.get('user-42\u200b')]);
    expect(row!.external_ref).toBe('user-42\u200b');
  });
});
