import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { App } from '../http/route-config.js';

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
export const ASSETS_PREFIX = '/static';

/**
 * The pages' own scripts and styles, read once at start and served from memory: no CDN, nothing third-party.
 * Each URL carries the file's hash, so browsers may keep a file for a year and still see a new version at once.
 */
export class StaticAssets {
  private readonly files = new Map<string, { body: Buffer; type: string; hash: string }>();

  constructor(directory: URL = new URL('./assets/', import.meta.url)) {
    for (const name of fs.readdirSync(directory)) {
      const body = fs.readFileSync(new URL(name, directory));
      const type = TYPES[name.slice(name.lastIndexOf('.'))];
      if (type) this.files.set(name, { body, type, hash: createHash('sha256').update(body).digest('hex').slice(0, 16) });
    }
  }

  /** The URL of an asset, with its content hash. */
  url(name: string): string {
    const file = this.files.get(name);
    if (!file) throw new Error(`no web asset named ${name}`);
    return `${ASSETS_PREFIX}/${name}?v=${file.hash}`;
  }

  register(app: App): void {
    app.get<{ Params: { name: string } }>(`${ASSETS_PREFIX}/:name`, { schema: { hide: true } }, async (request, reply) => {
      const file = this.files.get(request.params.name);
      if (!file) return reply.callNotFound();
      return reply.type(file.type).header('cache-control', 'public, max-age=31536000, immutable').send(file.body);
    });
  }
}

/**
 * Headers of every HTML page: a Content-Security-Policy that allows only this origin's scripts, styles and
 * fetches (no inline script, no third party), no MIME sniffing, no referrer. `framing` is who may embed it.
 */
export function pageHeaders(framing: "'none'" | '*' = "'none'"): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self'",
      "connect-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      `frame-ancestors ${framing}`,
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}
