import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type OpenDatabase } from '../../src/cli/run.js';
import { checkOwnerKeys } from '../../src/providers/chains/solana/owner-keys.js';
import { deriveOwners } from '../../scripts/solana-owner-keys.js';
import { startTestApp, type TestApp } from '../support/app.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('the offline derivation script (scripts/solana-owner-keys.ts)', () => {
  it("derives what Phantom and Solflare derive: the BIP-39 test mnemonic's account 0 at m/44'/501'/0'/0'", () => {
    // The address other wallets' test suites give for this mnemonic's first Solana account.
    expect(deriveOwners(ABANDON, 0, 1)).toEqual([{ owner: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk', derivation_path: "m/44'/501'/0'/0'" }]);
  });

  it('its output is an import file the pool accepts: distinct on-curve keys at hardened paths', () => {
    const owners = deriveOwners(ABANDON, 5, 20);
    expect(owners[0]!.derivation_path).toBe("m/44'/501'/5'/0'");
    const checked = checkOwnerKeys(owners);
    expect('keys' in checked && checked.keys).toHaveLength(20);
  });

  it('refuses a mnemonic whose checksum is wrong', () => {
    expect(() => deriveOwners(ABANDON.replace('about', 'abandon'), 0, 1)).toThrow('not a valid English BIP-39 mnemonic');
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

  /** The test database, kept open for the next run: runCli closes what it is given. */
  const testDatabase: OpenDatabase = async () => ({ ...t.db, close: async () => {} });
  async function cli(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
    const code = await runCli(argv, io, testDatabase, { CONNECT_DATA_DIR: path.join(os.tmpdir(), 'cli-test-no-server-here') });
    return { code, stdout, stderr };
  }

  it('imports the file the script wrote; the same file again imports nothing', async () => {
    const file = path.join(dir, 'owners.json');
    fs.writeFileSync(file, JSON.stringify(deriveOwners(ABANDON, 0, 3)));
    const first = await cli('solana', 'import-owners', file);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ object: 'solana_owner_import', network: 'solana', received: 3, imported: 3, free: 3 });
    expect(JSON.parse((await cli('solana', 'import-owners', file)).stdout)).toMatchObject({ received: 3, imported: 0, free: 3 });
  });

  it('a file that is not JSON is refused before anything is sent, naming the file', async () => {
    const file = path.join(dir, 'owners.txt');
    fs.writeFileSync(file, "m/44'/501'/0'/0' HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk\n");
    const run = await cli('solana', 'import-owners', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file}: not a readable JSON file of owner keys`);
  });
});
