import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createOrganization } from './service.js';

/**
 * How long an operator's change to an organization takes while its partner writes (issue 34, item 13): against
 * a running server, `CONCURRENCY` loops create and pay (sandbox) intents for one organization while the operator
 * reads it, renames it and suspends and reactivates it, each timed. Run by hand:
 *   npx tsx bench/organization-changes.ts http://127.0.0.1:8080 "$CONNECT_ADMIN_TOKEN" [seconds] [concurrency]
 */
const [baseUrl, adminToken, seconds = '20', concurrency = '32'] = process.argv.slice(2);
if (!baseUrl || !adminToken) throw new Error('usage: organization-changes.ts <base url> <admin token> [seconds] [concurrency]');

const { id, key } = await createOrganization(baseUrl, adminToken, 'Busy');
const partner = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const operator = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
const until = Date.now() + Number(seconds) * 1000;
let writes = 0;

async function partnerLoop(): Promise<void> {
  while (Date.now() < until) {
    const res = await fetch(`${baseUrl}/connect/v1/payment-intents`, {
      method: 'POST',
      headers: { ...partner, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ amount: '10', currencies: ['USDC'] }),
    });
    const intent = (await res.json()) as { id?: string };
    if (res.status !== 201 || !intent.id) continue; // suspended: the partner's requests are refused meanwhile
    await fetch(`${baseUrl}/connect/v1/test/payment-intents/${intent.id}/simulate-deposit`, { method: 'POST', headers: partner, body: '{}' });
    writes += 2;
  }
}

/** `read` (a GET of the organization, which takes no lock) is the floor the machine's load sets. */
const timings: Record<string, number[]> = { read: [], rename: [], suspend: [], reactivate: [] };
async function change(kind: string, body?: unknown): Promise<void> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/admin/v1/organizations/${id}`, body === undefined ? { headers: operator } : { method: 'PATCH', headers: operator, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${kind}: ${res.status} ${await res.text()}`);
  timings[kind]!.push(performance.now() - started);
}

async function operatorLoop(): Promise<void> {
  await sleep(2000);
  for (let round = 0; Date.now() < until - 1000; round++) {
    await change('read');
    await change('rename', { name: `Busy ${round}` });
    await sleep(500);
    if (round % 3 === 2) {
      await change('suspend', { status: 'suspended' });
      await change('reactivate', { status: 'active' });
      await sleep(500);
    }
  }
}

await Promise.all([operatorLoop(), ...Array.from({ length: Number(concurrency) }, partnerLoop)]);
const ms = (n: number) => `${Math.round(n)} ms`;
console.log(`${writes} partner writes in ${seconds} s by ${concurrency} loops`);
for (const [kind, all] of Object.entries(timings)) {
  const sorted = [...all].sort((a, b) => a - b);
  console.log(`${kind}: n=${sorted.length} median ${ms(sorted[Math.floor(sorted.length / 2)] ?? NaN)} max ${ms(sorted.at(-1) ?? NaN)}`);
}
