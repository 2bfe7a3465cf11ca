import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createTestClient, http, parseUnits, publicActions, walletActions, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const TOKEN = JSON.parse(fs.readFileSync(path.join(here, 'test-usdc.json'), 'utf8')) as { abi: readonly unknown[]; bytecode: Hex };

/** Anvil's first development account (mnemonic "test … junk"), funded with 10,000 ETH on every start. */
export const FUNDER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

/** The native binary of @foundry-rs/anvil for this platform (an optional dependency of the package). */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return path.join(path.dirname(require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`)), 'bin', 'anvil');
}

function clientFor(url: string) {
  // cacheTime 0: block numbers are otherwise served from a cache for seconds.
  return createTestClient({ mode: 'anvil', transport: http(url), cacheTime: 0, account: FUNDER }).extend(publicActions).extend(walletActions);
}

export type AnvilClient = ReturnType<typeof clientFor>;

export interface Anvil {
  url: string;
  chainId: number;
  client: AnvilClient;
  /** Deploys a fresh 6-decimal USDC-like token; answers its address. */
  deployToken(): Promise<Address>;
  /** Sends `amount` ETH (decimal string) from the funder and mines it; answers the transaction hash. */
  sendEth(to: string, amount: string): Promise<Hex>;
  /** Mints `amount` tokens (decimal string, 6 decimals) to `to` and mines it; answers the transaction hash. */
  sendToken(token: Address, to: string, amount: string): Promise<Hex>;
  mine(blocks: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts anvil on a free port (`--port 0`) and waits for its "Listening on" line. No block time: blocks are
 * mined on demand (each transaction is mined as it arrives, `mine` adds empty blocks), so tests never wait.
 */
export async function startAnvil(options: { chainId?: number } = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 31337;
  const child: ChildProcess = spawn(anvilBinary(), ['--port', '0', '--host', '127.0.0.1', '--chain-id', String(chainId)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (\S+)/.exec(output);
      if (match) resolve(`http://${match[1]}`);
    });
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code} before listening: ${output}`)));
  });
  child.stdout!.resume();
  const client = clientFor(url);
  const mined = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return hash;
  };
  return {
    url,
    chainId,
    client,
    async deployToken() {
      const hash = await client.deployContract({ abi: TOKEN.abi, bytecode: TOKEN.bytecode, chain: null });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      return receipt.contractAddress!;
    },
    sendEth: async (to, amount) => mined(await client.sendTransaction({ to: to as Address, value: parseUnits(amount, 18), chain: null })),
    sendToken: async (token, to, amount) =>
      mined(await client.writeContract({ address: token, abi: TOKEN.abi, functionName: 'mint', args: [to, parseUnits(amount, 6)], chain: null })),
    mine: (blocks) => client.mine({ blocks }),
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
