import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import type { ContextOptions } from '../../src/context.js';
import { startTestApp, type TestApp } from './app.js';
import { UNLIMITED_PAGES } from './pages.js';

// jsqr is a CommonJS module whose types declare an ES default export; require gives the function itself.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;

/** Debian's Chromium (or CHROMIUM_PATH): playwright-core drives it and downloads no browser of its own. */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (candidate): candidate is string => !!candidate && fs.existsSync(candidate),
);

/** Why browser tests are skipped on this machine, or null when they run. */
export const NO_BROWSER_REASON = CHROMIUM ? null : 'no Chromium binary (apt-get install chromium, or set CHROMIUM_PATH): browser tests skipped';

export function launchBrowser(): Promise<Browser> {
  // As root (CI containers) Chromium refuses to start with its sandbox on.
  return chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
}

/** The text a QR code in a PNG screenshot holds, or null when none can be read. */
export function decodeQr(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

/** Where browser tests write screenshots (git-ignored; CI keeps them as artifacts). */
export const ARTIFACTS = path.resolve('test-artifacts');

export function artifactPath(name: string): string {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 900 };

/** A test app listening on a free port, and Chromium to visit it. */
export interface BrowserRig {
  t: TestApp;
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function startBrowserRig(options: ContextOptions = {}): Promise<BrowserRig> {
  const t = await startTestApp(UNLIMITED_PAGES, undefined, options);
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await launchBrowser();
  return {
    t,
    base,
    browser,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
