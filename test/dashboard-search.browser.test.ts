import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from './support/app.js';
import { artifactPath, DESKTOP, NO_BROWSER_REASON, startBrowserRig, type BrowserRig } from './support/browser.js';
import { createIntent, createTenant, simulate } from './support/partner.js';

if (NO_BROWSER_REASON) console.warn(NO_BROWSER_REASON);

describe.skipIf(NO_BROWSER_REASON !== null)('the dashboard search in Chromium', () => {
  let rig: BrowserRig;
  beforeAll(async () => {
    rig = await startBrowserRig();
  });
  afterAll(() => rig?.close());

  it('finds a ref code from the search box of any page, and an external_ref shared by two organizations, with links to each', async () => {
    const { t, base, browser } = rig;
    const user = `user-${randomUUID()}`;
    const [a, b] = [await createTenant(t), await createTenant(t)];
    const paid = await simulate(t, a.key, (await createIntent(t, a.key, { amount: '3.5', external_ref: user })).id);
    const other = await createIntent(t, b.key, { external_ref: user });

    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${base}/admin/sign-in`);
    await page.getByLabel('Operator token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/admin\/overview/);

    // One match: its page opens at once, with the events about it.
    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.fill(paid.ref_code.toLowerCase());
    await box.press('Enter');
    await page.waitForURL(new RegExp(`/admin/objects/payment_intent/${paid.id}$`));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Payment intent ${paid.id}`);
    expect(await page.getByRole('cell', { name: 'payment_intent.completed' }).count()).toBe(1);

    // Several: a results page, the search kept in the box, each result a link to its object.
    await box.fill(user);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/admin\/search\?q=/);
    expect(await box.inputValue()).toBe(user);
    expect(await page.locator('tbody tr').count()).toBe(2);
    await page.screenshot({ path: artifactPath('dashboard-search.png'), fullPage: true });
    await page.locator(`a[href="/admin/objects/payment_intent/${other.id}"]`).click();
    await page.waitForURL(new RegExp(`/admin/objects/payment_intent/${other.id}$`));
    expect(await page.locator(`a[href="/admin/organizations/${b.organizationId}"]`).count()).toBe(1);
    await context.close();
  });
});
