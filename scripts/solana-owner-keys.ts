/**
 * Derives Solana owner public keys from a BIP-39 mnemonic, OFFLINE, for the deposit address pool
 * (docs/live-solana.md): SLIP-10 ed25519 at m/44'/501'/<i>'/0', as Phantom and Solflare derive their accounts,
 * so the same mnemonic in such a wallet (or this derivation) spends them. Prints the import file (a JSON array
 * of { owner, derivation_path }) and nothing secret. The mnemonic is read from standard input, never from the
 * command line (shell history, process lists):
 *
 *   npx tsx scripts/solana-owner-keys.ts --from 0 --count 1000 < mnemonic.txt > owners.json
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { getAddressDecoder } from '@solana/kit';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey } from 'micro-key-producer/slip10.js';

export const ownerPath = (index: number) => `m/44'/501'/${index}'/0'`;

/** The owners at indexes `from` to `from + count - 1`, as the import file lists them. */
export function deriveOwners(mnemonic: string, from: number, count: number): { owner: string; derivation_path: string }[] {
  const words = mnemonic.trim().split(/\s+/).join(' ');
  if (!validateMnemonic(words, wordlist)) throw new Error('not a valid English BIP-39 mnemonic');
  const master = HDKey.fromMasterSeed(mnemonicToSeedSync(words));
  return Array.from({ length: count }, (_, i) => {
    const derivation_path = ownerPath(from + i);
    return { owner: getAddressDecoder().decode(master.derive(derivation_path).publicKeyRaw), derivation_path };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { from: { type: 'string', default: '0' }, count: { type: 'string', default: '100' } } });
  const [from, count] = [Number(values.from), Number(values.count)];
  if (!Number.isSafeInteger(from) || from < 0 || from >= 2 ** 31 - count || !Number.isSafeInteger(count) || count < 1) {
    throw new Error('--from must be an index from 0 and --count at least 1, both within the 2^31 hardened indexes');
  }
  process.stdout.write(`${JSON.stringify(deriveOwners(fs.readFileSync(0, 'utf8'), from, count), null, 2)}\n`);
}
