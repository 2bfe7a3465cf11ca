import fs from 'node:fs';
import { getAddress, isAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Catalog } from '../domain/catalog.js';
import { TreasuryPolicy } from '../domain/treasury-policy.js';
import { isValidDestination } from '../providers/chains/address-codecs.js';
import { EvmDepositKeys } from './evm-deposit-keys.js';
import { evmNetworkRules } from './evm-sweep-rules.js';
import type { SignerSetup } from './server.js';

/** The settings of `connect-payments signer` (docs/treasury.md, "The signer"). */
export interface SignerSettings {
  setup: Omit<SignerSetup, 'logger'>;
  host: string;
  port: number;
  logLevel: string;
}

const required = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = env[name];
  if (!value) throw new Error(`${name} must be set for the signer (docs/treasury.md, "The signer")`);
  return value;
};

/**
 * A secret file's first line, refused when anyone but its owner may read it: the signer's files are the keys to
 * every deposit address and to the gas account. The messages name the setting, never the content.
 */
function secretFile(env: NodeJS.ProcessEnv, name: string): string {
  const file = required(env, name);
  const mode = fs.statSync(file).mode;
  if ((mode & 0o077) !== 0) throw new Error(`${name} (${file}) may be read by others (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
  return fs.readFileSync(file, 'utf8').split('\n')[0]!.trim();
}

function listenAddress(raw: string | undefined): { host: string; port: number } {
  const match = /^(.+):(\d{1,5})$/.exec(raw ?? '127.0.0.1:8091');
  if (!match || Number(match[2]) > 65_535) throw new Error('CONNECT_SIGNER_ADDRESS must be host:port');
  return { host: match[1]!, port: Number(match[2]) };
}

/** Everything the signer needs, from its own environment and files, checked before it listens. */
export function loadSignerSettings(env: NodeJS.ProcessEnv): SignerSettings {
  const catalog = Catalog.load(env.CONNECT_CATALOG_FILE || undefined);
  const policy = TreasuryPolicy.load(required(env, 'CONNECT_TREASURY_FILE'), catalog, isValidDestination);
  const deposits = EvmDepositKeys.fromMnemonic(secretFile(env, 'CONNECT_SIGNER_SEED_FILE'), env.CONNECT_SIGNER_EVM_ACCOUNT || "m/44'/60'/0'", required(env, 'CONNECT_EVM_XPUB'));
  const gasKey = secretFile(env, 'CONNECT_SIGNER_GAS_KEY_FILE');
  if (!/^0x[0-9a-fA-F]{64}$/.test(gasKey)) throw new Error('CONNECT_SIGNER_GAS_KEY_FILE must hold 0x followed by 64 hex digits');
  const gas = privateKeyToAccount(gasKey as Hex);
  const hot = env.CONNECT_SIGNER_HOT_WALLET;
  if (hot !== undefined && !isAddress(hot, { strict: false })) throw new Error('CONNECT_SIGNER_HOT_WALLET must be an EVM address');
  const secret = secretFile(env, 'CONNECT_SIGNER_SECRET_FILE');
  if (!secret.startsWith('whsec_')) throw new Error('CONNECT_SIGNER_SECRET_FILE must hold a whsec_ secret (connect-payments signer secret)');
  const rules = evmNetworkRules(policy, catalog, hot === undefined ? gas.address : getAddress(hot));
  if (rules.size === 0) throw new Error('The treasury policy has no EVM network with max_fee_per_sweep and max_fees_per_day: the signer would sign nothing');
  return { setup: { rules, deposits, gas, secret }, ...listenAddress(env.CONNECT_SIGNER_ADDRESS), logLevel: env.LOG_LEVEL || 'info' };
}
