import type { App } from '../http/route-config.js';

/**
 * Lets the routes of `app` (one plugin's scope) take the URL-encoded bodies of HTML forms, as an object of
 * strings (a repeated name keeps its last value); the APIs elsewhere keep speaking JSON only.
 */
export function acceptForms(app: App, bodyLimit: number): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
}

/** A form field's value; undefined when the body has no such string (no body, another shape, a JSON body). */
export function formField(body: unknown, name: string): string | undefined {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
