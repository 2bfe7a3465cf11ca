/**
 * Regenerates sweep-forwarders.json (ABI and bytecode of ForwarderFactory.sol and SweepForwarder.sol) with the solc
 * and @openzeppelin/contracts versions in package.json: `npx tsx test/support/evm/build-forwarders.ts`. The
 * artifact is committed, so the sweep bench (bench/sweep-mechanics.ts) never compiles.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const solc = require('solc') as { compile(input: string, callbacks: { import(file: string): { contents: string } | { error: string } }): string; version(): string };
const here = path.dirname(fileURLToPath(import.meta.url));
const SOURCES = ['SweepForwarder.sol', 'ForwarderFactory.sol'];

const input = {
  language: 'Solidity',
  sources: Object.fromEntries(SOURCES.map((source) => [source, { content: fs.readFileSync(path.join(here, source), 'utf8') }])),
  settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
};

function findImport(file: string) {
  try {
    const local = path.join(here, file);
    return { contents: fs.readFileSync(fs.existsSync(local) ? local : require.resolve(file), 'utf8') };
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
const pick = (source: string, name: string) => {
  const contract = output.contracts[source]![name]!;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
};
const artifact = {
  compiler: `solc ${solc.version()}`,
  ForwarderFactory: pick('ForwarderFactory.sol', 'ForwarderFactory'),
  SweepForwarder: pick('SweepForwarder.sol', 'SweepForwarder'),
};
fs.writeFileSync(path.join(here, 'sweep-forwarders.json'), `${JSON.stringify(artifact, null, 2)}\n`);
console.log(`wrote sweep-forwarders.json (${artifact.compiler})`);
