import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import { creditDeposit, type CreditPrices, type IncomingDeposit } from '../src/use-cases/deposits.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { accountsOf, countRows, createIntent, createTenant, creditPrices, getIntent, intentAddressId } from './support/partner.js';

/**
 * The deposit-credit use case checks what its source (a chain watcher, the simulator) hands it instead of
 * trusting it: the address must belong to the tenant the source names, the networks must agree, and the
 * on-chain identity must be complete. A refused deposit changes nothing.
 */
let t: TestApp;
let owner: Tenant;
let other: Tenant;
let addressId: string;
let intentId: string;
let prices: CreditPrices;
beforeAll(async () => {
  t = await startTestApp();
  prices = await creditPrices(t);
  owner = await createTenant(t);
  other = await createTenant(t);
  const intent = await createIntent(t, owner.key);
  intentId = intent.id;
  addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');
});
afterAll(() => t.close());

const deposit = (changes: Partial<IncomingDeposit> = {}): IncomingDeposit => ({
  addressId,
  network: 'solana',
  txHash: 'source-check-hash',
  outputIndex: 0,
  amount: new Decimal('1'),
  fromAddress: 'sender',
  ...changes,
});

async function expectRefused(tenant: Tenant, incoming: IncomingDeposit, message: RegExp) {
  const before = await countRows(t, 'SELECT 1 FROM transactions', []);
  await expect(t.db.transaction((tx) => creditDeposit(tx, { organizationId: tenant.organizationId, mode: 'test' }, incoming, t.ctx.clock, prices))).rejects.toThrow(
    message,
  );
  expect(await countRows(t, 'SELECT 1 FROM transactions', [])).toBe(before);
  expect(await accountsOf(t, owner.organizationId)).toEqual([]);
  expect(await accountsOf(t, other.organizationId)).toEqual([]);
  expect((await getIntent(t, owner.key, intentId)).amount_received).toBe(0);
}

describe('deposit-credit input checks', () => {
  it("a deposit named under another tenant than the address's is refused: the address is not found for it", async () => {
    await expectRefused(other, deposit(), /does not own/);
  });

  it('a deposit in the live mode of the owning organization does not reach its sandbox address', async () => {
    await expect(
      t.db.transaction((tx) => creditDeposit(tx, { organizationId: owner.organizationId, mode: 'live' }, deposit(), t.ctx.clock, prices)),
    ).rejects.toThrow(/does not own/);
  });

  it("a deposit whose network differs from the address's is refused", async () => {
    await expectRefused(owner, deposit({ network: 'base' }), /is on solana/);
  });

  it.each([
    ['an empty tx hash', { txHash: '' }, /tx hash/],
    ['a negative output index', { outputIndex: -1 }, /output index/],
    ['a fractional output index', { outputIndex: 0.5 }, /output index/],
    ['a zero amount', { amount: new Decimal(0) }, /positive amount/],
  ] as const)('%s is refused', async (_what, changes, message) => {
    await expectRefused(owner, deposit(changes as Partial<IncomingDeposit>), message);
  });

  it('the schema refuses a deposit row without its on-chain identity too', async () => {
    await expect(
      t.db.query(
        `INSERT INTO transactions (id, organization_id, mode, type, status, asset, network, amount)
         VALUES (gen_random_uuid(), $1, 'test', 'deposit', 'confirmed', 'USDC', 'solana', 1)`,
        [owner.organizationId],
      ),
    ).rejects.toThrow(/transactions_deposit_identity_check/);
  });

  it('the owner, naming itself, is credited', async () => {
    const result = await t.db.transaction((tx) =>
      creditDeposit(tx, { organizationId: owner.organizationId, mode: 'test' }, deposit({ txHash: 'good-hash' }), t.ctx.clock, prices),
    );
    expect(result.duplicate).toBe(false);
    expect((await getIntent(t, owner.key, intentId)).amount_received).toBe(1);
  });
});
