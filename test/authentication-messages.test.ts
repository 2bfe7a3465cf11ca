import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Status, code and message of a GET /health with this Authorization header (none when null). */
async function answer(authorization: string | null) {
  const res = await t.call(null, 'GET', '/health', authorization === null ? {} : { headers: { authorization } });
  const { code, message } = res.json().error;
  return { status: res.statusCode, code, message: message as string };
}

describe('authentication messages: same status and code, a message that says what is wrong', () => {
  it('a missing header says the header is missing', async () => {
    expect(await answer(null)).toEqual({ status: 401, code: 'authentication_required', message: expect.stringContaining('header is missing') });
  });

  it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer sk_prod_0123456789abcdefghijABCDEFGHIJ0123'], ['Bearer sk_test_abc']])(
    'a malformed header (%s) says it is malformed, not missing',
    async (header) => {
      expect(await answer(header)).toEqual({ status: 401, code: 'authentication_required', message: expect.stringContaining('header is malformed') });
    },
  );

  it('a revoked key and a key never issued get the very same answer, which names neither case', async () => {
    const tenant = await t.tenant();
    expect((await t.admin('DELETE', `/keys/${tenant.keyId}`)).statusCode).toBe(200);
    const revoked = await answer(`Bearer ${tenant.key}`);
    const neverIssued = await answer(`Bearer sk_test_${'A'.repeat(40)}`);
    expect(revoked).toEqual(neverIssued);
    expect(revoked).toEqual({ status: 401, code: 'authentication_required', message: expect.stringContaining('does not match any active key') });
    expect(revoked.message).not.toMatch(/missing|malformed/);
  });
});
