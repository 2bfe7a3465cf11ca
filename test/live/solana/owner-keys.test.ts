import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { normalizeZ } from '@noble/curves/abstract/curve.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { getAddressDecoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOwnerKeys } from '../../../src/providers/chains/solana/owner-keys.js';
import { deriveOwners } from '../../../scripts/solana-owner-keys.js';
import { MAX_KEYS, OWNER_KEYS_BODY_LIMIT } from '../../../src/routes/admin/solana.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../support/app.js';
import { cliOn } from '../../support/cli.js';
import { errorOf } from '../../support/partner.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('the offline derivation script (scripts/solana-owner-keys.ts)', () => {
  it("derives what Phantom and Solflare derive: the BIP-39 test mnemonic's account 0 at m/44'/501'/0'/0'", () => {
    // The address other wallets' test suites give for this mnemonic's first Solana account.
    expect(deriveOwners(ABANDON, 0, 1)).toEqual([{ owner: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk', derivation_path: "m/44'/501'/0'/0'" }]);
  });

  it('its output is an import file the pool accepts: distinct on-curve keys at hardened paths', async () => {
    const owners = deriveOwners(ABANDON, 5, 20);
    expect(owners[0]!.derivation_path).toBe("m/44'/501'/5'/0'");
    const checked = await checkOwnerKeys(owners);
    expect('keys' in checked && checked.keys).toHaveLength(20);
  });

  it('refuses a mnemonic whose checksum is wrong', () => {
    expect(() => deriveOwners(ABANDON.replace('about', 'abandon'), 0, 1)).toThrow('not a valid English BIP-39 mnemonic');
  });
});

/**
 * `count` distinct public keys of the prime-order group (k·G for k = first, first + 1, …), as any wallet's are.
 * Encoded after one shared inversion (normalizeZ) rather than one per point: a third of the time for 10,000 keys.
 */
function groupKeys(count: number, first = 1): { owner: string; derivation_path: string }[] {
  const decoder = getAddressDecoder();
  const points = [ed25519.Point.BASE.multiply(BigInt(first))];
  while (points.length < count) points.push(points.at(-1)!.add(ed25519.Point.BASE));
  return normalizeZ(ed25519.Point, points).map((point, i) => ({
    owner: decoder.decode(point.toBytes()),
    derivation_path: `m/44'/501'/${first + i}'/0'`,
  }));
}

describe('owner keys no private key can spend from, and paths SLIP-10 cannot derive, are refused', () => {
  const path = "m/44'/501'/0'/0'";
  const problemsOf = async (entries: { owner: string; derivation_path: string }[]) => {
    const checked = await checkOwnerKeys(entries);
    return 'problems' in checked ? checked.problems : [];
  };

  it('the all-zero key and the identity point (small order, on the curve) are refused, naming each', async () => {
    const zero = getAddressDecoder().decode(new Uint8Array(32));
    const identity = getAddressDecoder().decode(ed25519.Point.ZERO.toBytes());
    expect(zero).toBe('11111111111111111111111111111111');
    const problems = await problemsOf([
      { owner: zero, derivation_path: path },
      { owner: identity, derivation_path: "m/44'/501'/1'/0'" },
    ]);
    expect(problems).toEqual([
      `keys[0].owner: ${zero} is a small-order point (such as the all-zero key or the identity): no private key can spend from it`,
      `keys[1].owner: ${identity} is a small-order point (such as the all-zero key or the identity): no private key can spend from it`,
    ]);
  });

  it('every point of order 8 or less is refused: the whole torsion group', async () => {
    // A point of order 8 (libsodium's list of small-order encodings); its multiples are the eight torsion points.
    const order8 = ed25519.Point.fromHex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05');
    expect(order8.double().double().is0()).toBe(false);
    expect(order8.clearCofactor().is0()).toBe(true);
    let point = ed25519.Point.ZERO;
    for (let k = 0; k < 8; k++, point = point.add(order8)) {
      expect((await problemsOf([{ owner: getAddressDecoder().decode(point.toBytes()), derivation_path: path }]))[0], `${k}·T`).toContain('small-order point');
    }
  });

  it('a hardened index above 2³¹ − 1 is refused; 2³¹ − 1 itself is the largest path accepted; leading zeros are refused', async () => {
    const [key] = groupKeys(1, 7);
    expect(await problemsOf([{ owner: key!.owner, derivation_path: "m/44'/501'/2147483647'/0'" }])).toEqual([]);
    expect(await problemsOf([{ owner: key!.owner, derivation_path: "m/44'/501'/2147483648'/0'" }])).toEqual([
      `keys[0].derivation_path: "m/44'/501'/2147483648'/0'" has the index 2147483648', above 2147483647' (the largest hardened index): no SLIP-10 derivation reaches it`,
    ]);
    expect((await problemsOf([{ owner: key!.owner, derivation_path: "m/44'/501'/9999999999'/0'" }]))[0]).toContain('above 2147483647');
    expect((await problemsOf([{ owner: key!.owner, derivation_path: "m/44'/501'/07'/0'" }]))[0]).toContain('without leading zeros');
  });
});

describe('connect-payments solana import-owners <file>', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'solana-owners-'));
  });
  afterAll(async () => {
    await t?.close();
  });

  const cli = cliOn(() => t);

  it('imports the file the script wrote; the same file again imports nothing', async () => {
    const file = path.join(dir, 'owners.json');
    fs.writeFileSync(file, JSON.stringify(deriveOwners(ABANDON, 0, 3)));
    const first = await cli('solana', 'import-owners', file);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ object: 'solana_owner_import', network: 'solana', received: 3, imported: 3, free: 3 });
    expect(JSON.parse((await cli('solana', 'import-owners', file)).stdout)).toMatchObject({ received: 3, imported: 0, free: 3 });
  });

  it(`one request imports ${MAX_KEYS} keys, as documented (the route's body limit is above the API's 256 KiB); one more key is refused, naming keys`, async () => {
    const keys = groupKeys(MAX_KEYS + 1, 1000);
    const all = await t.admin('POST', '/solana/owner-keys', { network: 'solana', keys: keys.slice(0, MAX_KEYS) });
    expect(all.statusCode, all.body.slice(0, 500)).toBe(200);
    expect(all.json()).toMatchObject({ received: MAX_KEYS, imported: MAX_KEYS });
    const over = await t.admin('POST', '/solana/owner-keys', { network: 'solana', keys });
    expect(over.statusCode).toBe(400);
    expect(errorOf(over)).toMatchObject({ code: 'invalid_request', param: 'keys' });
  });

  it('a body over the route\'s limit is a 413 that states that limit', async () => {
    const padding = ' '.repeat(OWNER_KEYS_BODY_LIMIT);
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/solana/owner-keys',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: `{"network": "solana", "keys": []${padding}}`,
    });
    expect(res.statusCode).toBe(413);
    expect(errorOf(res).message).toBe(`The request body is larger than ${OWNER_KEYS_BODY_LIMIT / 1024} KiB.`);
  });

  it('a file that is not JSON is refused before anything is sent, naming the file', async () => {
    const file = path.join(dir, 'owners.txt');
    fs.writeFileSync(file, "m/44'/501'/0'/0' HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk\n");
    const run = await cli('solana', 'import-owners', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file}: not a readable JSON file of owner keys`);
  });
});
