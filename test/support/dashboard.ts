import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ADMIN_TOKEN, type TestApp } from './app.js';

/** A signed-in operator: the session cookie, and a way to post the dashboard's forms with the page's CSRF token. */
export interface Operator {
  cookie: string;
  get(url: string): Promise<LightMyRequestResponse>;
  /** POSTs `fields` to `action` with the CSRF token read from `formPage` (as a browser submitting that page's form). */
  submit(formPage: string, action: string, fields?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export const form = (fields: Record<string, string>) => ({
  payload: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

export function signIn(t: TestApp, token: string) {
  const { payload, headers } = form({ token });
  return t.app.inject({ method: 'POST', url: '/admin/sign-in', payload, headers });
}

export const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1];

export async function signInOperator(t: TestApp): Promise<Operator> {
  const res = await signIn(t, ADMIN_TOKEN);
  expect(res.statusCode).toBe(303);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  return {
    cookie,
    get,
    async submit(formPage, action, fields = {}) {
      const page = await get(formPage);
      const { payload, headers } = form({ _csrf: csrfOf(page.body)!, ...fields });
      return t.app.inject({ method: 'POST', url: action, payload, headers: { ...headers, cookie } });
    },
  };
}
