import { randomUUID } from 'node:crypto';
import { Decimal } from '../../src/domain/money.js';
import type { IntentView } from '../../src/use-cases/payment-intents.js';
import type { TestApp } from './app.js';

/** Page budgets no test reaches by accident: per address, and the ceilings on lookups by ref_code that miss. */
export const UNLIMITED_PAGES = { pagesRequestsPerSecond: 100_000, pagesMissesPerMinutePerAddress: 100_000, pagesMissesPerMinute: 100_000 };

/** The public status route of an intent's page. */
export const statusPath = (id: string) => `/pay/i/${id}/status`;

/**
 * A live intent, written through the second step of intent creation (`PaymentIntents.record`, which calls no
 * custody; its idempotency record is a throwaway): live custody answers 503 until a real integration lands, and the page must still be tested live.
 */
export async function insertLiveIntent(t: TestApp, address = '0x52908400098527886E0F7030069857D2E4169EE7'): Promise<IntentView> {
  const organization = await t.ctx.operator.createOrganization({ name: 'Live tenant', status: 'active' });
  let view: IntentView | null = null;
  const written = await t.ctx.paymentIntents.record(
    t.db,
    {
      id: randomUUID(),
      tenant: { organizationId: organization.id, mode: 'live' },
      externalRef: null,
      amount: new Decimal('25'),
      currencies: ['USDC'],
      description: null,
      metadata: null,
      ttlSeconds: 3600,
      addresses: [{ id: randomUUID(), asset: 'USDC', network: 'base', address, memo: null }],
    },
    (recorded) => {
      view = recorded;
      const scope = { organizationId: organization.id, mode: 'live' as const, key: randomUUID() };
      return { scope, requestHash: 'fixture', ttlSeconds: 60, status: 201, body: '{}' };
    },
  );
  if (!written) throw new Error('the live intent fixture was not written');
  return view!;
}

/** What a rendered payment page asks of the payer: its next step and, while paying, the one card shown. */
export interface RenderedStep {
  step: string | undefined;
  qrCodes: number;
  addresses: string[];
  amount: string | undefined;
  qrText: string | undefined;
  /** The picker's links (`?asset=…&network=…&lang=…`), and the one marked current, per picker label. */
  pickers: Record<string, { links: string[]; current: string | undefined }>;
}

const unescape = (text: string) => text.replace(/&amp;/g, '&').replace(/&quot;/g, '"');

export function renderedStep(body: string): RenderedStep {
  const pickers: RenderedStep['pickers'] = {};
  for (const [, label, list] of body.matchAll(/<nav class="picker" aria-label="([^"]+)">([\s\S]*?)<\/nav>/g)) {
    const links = [...list!.matchAll(/<a href="([^"]+)"( aria-current="true")?>([^<]+)<\/a>/g)];
    pickers[label!] = { links: links.map((l) => l[3]!), current: links.find((l) => l[2])?.[3] };
  }
  return {
    step: /<section class="next-step" id="next-step" data-step="(\w+)">/.exec(body)?.[1],
    qrCodes: body.match(/<svg /g)?.length ?? 0,
    addresses: [...body.matchAll(/<code class="address" id="address">([^<]+)<\/code>/g)].map((m) => m[1]!),
    amount: /<code class="amount" id="amount">([^<]+)<\/code>/.exec(body)?.[1],
    qrText: unescape(/data-qr-text="([^"]+)"/.exec(body)?.[1] ?? '') || undefined,
    pickers,
  };
}
