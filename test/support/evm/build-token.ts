/**
 * Regenerates test-usdc.json (ABI and bytecode of TestUSDC.sol) with the solc and @openzeppelin/contracts
 * versions in package.json: `npx tsx test/support/evm/build-token.ts`. The artifact is committed, so tests
 * never compile.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const solc = require('solc') as { compile(input: string, callbacks: { import(file: string): { contents: string } | { error: string } }): string; version(): string };
const here = path.dirname(fileURLToPath(import.meta.url));
const SOURCE = 'TestUSDC.sol';

const input = {
  language: 'Solidity',
  sources: { [SOURCE]: { content: fs.readFileSync(path.join(here, SOURCE), 'utf8') } },
  settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
};

function findImport(file: string) {
  try {
    return { contents: fs.readFileSync(require.resolve(file), 'utf8') };
  } catch {
    return { error: `not found: ${file}` };
  }
}

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: unknown; evm: { bytecode: { object: string } } }>>;
};
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
const contract = output.contracts[SOURCE]!.TestUSDC!;
const artifact = { compiler: `solc ${solc.version()}`, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
fs.writeFileSync(path.join(here, 'test-usdc.json'), `${JSON.stringify(artifact, null, 2)}\n`);
console.log(`wrote test-usdc.json (${artifact.compiler})`);
