import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // 205 organizations with distinct, increasing creation times (older first).
  await t.db.query(
    `INSERT INTO organizations (id, name, status, settings, created_at)
     SELECT gen_random_uuid(), 'Org ' || i, 'active', '{"intent_ttl_seconds":3600,"disabled_pairs":[]}',
            date_trunc('milliseconds', now()) - make_interval(secs => 1000 - i)
     FROM generate_series(1, 205) AS i`,
  );
});
afterAll(() => t.close());

type Page = { has_more: boolean; data: { id: string; name: string; created_at: string }[]; cursor: string | null };
const list = async (query: string) => (await t.admin('GET', `/organizations${query}`)).json() as Page;

async function walk(limit: number): Promise<Page['data']> {
  const seen: Page['data'] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await list(`?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.has_more).toBe(page.cursor !== null);
    seen.push(...page.data);
    cursor = page.cursor;
  } while (cursor);
  return seen;
}

describe('cursor pagination', () => {
  it('without limit a page holds 50 rows, newest first', async () => {
    const page = await list('');
    expect(page.data).toHaveLength(50);
    expect(page.data[0]!.name).toBe('Org 205');
    const times = page.data.map((o) => o.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('a limit above 200 is clamped to 200', async () => {
    const page = await list('?limit=500');
    expect(page.data).toHaveLength(200);
    expect(page.has_more).toBe(true);
  });

  it.each(['0', '-1', 'abc', '1.5', ''])('limit=%s is 400 invalid_request with param limit', async (limit) => {
    const res = await t.admin('GET', `/organizations?limit=${limit}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'limit' });
  });

  it('walking the pages visits every row once; has_more is exact and the last cursor is null', async () => {
    const rows = await walk(7);
    expect(rows).toHaveLength(205);
    expect(new Set(rows.map((r) => r.id)).size).toBe(205);
  });

  it('a last page that is exactly full says has_more false', async () => {
    const first = await list('?limit=200');
    const last = await list(`?limit=5&cursor=${encodeURIComponent(first.cursor!)}`);
    expect(last.data).toHaveLength(5);
    expect(last.has_more).toBe(false);
    expect(last.cursor).toBeNull();
  });

  it('a tampered cursor is 400 invalid_request with param cursor', async () => {
    const { cursor } = await list('?limit=2');
    const tampered = cursor!.slice(0, 5) + (cursor![5] === 'A' ? 'B' : 'A') + cursor!.slice(6);
    for (const bad of [tampered, 'garbage', `${cursor}.x`]) {
      const res = await t.admin('GET', `/organizations?cursor=${encodeURIComponent(bad)}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'cursor' });
    }
  });

  it('a cursor from another list is refused', async () => {
    const org = (await list('?limit=1')).data[0]!;
    for (let i = 0; i < 3; i++) await t.ctx.operator.createApiKey(org.id, { mode: 'test' });
    const keys = (await t.admin('GET', `/organizations/${org.id}/keys?limit=1`)).json() as Page;
    const res = await t.admin('GET', `/organizations?cursor=${encodeURIComponent(keys.cursor!)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe('cursor');
  });

  it('pages stay correct while rows are inserted between requests', async () => {
    const first = await list('?limit=10');
    for (let i = 0; i < 5; i++) await t.ctx.operator.createOrganization({ name: `Late ${i}` });
    const second = await list(`?limit=10&cursor=${encodeURIComponent(first.cursor!)}`);
    const firstIds = new Set(first.data.map((o) => o.id));
    expect(second.data.some((o) => firstIds.has(o.id))).toBe(false);
    expect(second.data.some((o) => o.name.startsWith('Late'))).toBe(false);
    expect(Date.parse(second.data[0]!.created_at)).toBeLessThanOrEqual(Date.parse(first.data[9]!.created_at));
  });
});
