import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type Tenant } from './support/app.js';
import { artifactPath, DESKTOP, NO_BROWSER_REASON, startBrowserRig, type BrowserRig } from './support/browser.js';
import { createIntent, createTenant, simulate } from './support/partner.js';
import { deliveryPage, putEndpoint } from './support/webhook-admin.js';

if (NO_BROWSER_REASON) console.warn(NO_BROWSER_REASON);

describe.skipIf(NO_BROWSER_REASON !== null)('the operator dashboard in Chromium', () => {
  let rig: BrowserRig;
  let tenant: Tenant;
  beforeAll(async () => {
    rig = await startBrowserRig();
    tenant = await createTenant(rig.t);
  });
  afterAll(() => rig?.close());

  it('signs in with the operator token, lists the intent, and replays a webhook delivery', async () => {
    const { t, base, browser } = rig;
    await putEndpoint(t, tenant.organizationId, 'test');
    const intent = await createIntent(t, tenant.key, { amount: '7.25' });
    await simulate(t, tenant.key, intent.id);
    const before = (await deliveryPage(t, tenant.organizationId)).data.length;

    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${base}/admin/`);
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    await page.getByLabel('Operator token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/admin\/overview/);
    // The session cookie is out of reach of the page's scripts.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    // Only sandbox has deposits: the overview opens on it.
    expect(await page.getByRole('link', { name: 'Show live' }).count()).toBe(1);
    await page.locator('figure.chart svg').first().waitFor();
    await page.screenshot({ path: artifactPath('dashboard-overview.png'), fullPage: true });

    await page.getByRole('link', { name: 'Organizations' }).first().click();
    await page.locator(`a[href="/admin/organizations/${tenant.organizationId}"]`).click();
    await page.locator(`a[href="/admin/organizations/${tenant.organizationId}/test/intents"]`).click();
    expect(await page.getByRole('link', { name: intent.ref_code }).count()).toBe(1);
    await page.screenshot({ path: artifactPath('dashboard-intents.png'), fullPage: true });

    await page.goto(`${base}/admin/organizations/${tenant.organizationId}/test/deliveries`);
    await page.getByRole('button', { name: 'Replay' }).first().click();
    await page.waitForURL(/\/test\/deliveries$/);
    expect(await page.locator('tbody tr').count()).toBe(before + 1);
    expect((await deliveryPage(t, tenant.organizationId)).data[0]).toMatchObject({ origin: 'replay' });
    await context.close();
  });
});
