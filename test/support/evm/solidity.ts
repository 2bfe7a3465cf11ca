/**
 * Compiles contracts of this folder with the solc and @openzeppelin/contracts versions in test/package.json, for
 * the scripts that regenerate the committed artifacts (build-token.ts, build-forwarders.ts): tests and benches load
 * the artifacts and never compile.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const solc = require('solc') as { compile(input: string, callbacks: { import(file: string): { contents: string } | { error: string } }): string; version(): string };
const here = path.dirname(fileURLToPath(import.meta.url));

export interface Compiled {
  compiler: string;
  /** The ABI and creation bytecode of contract `name` of `source`. */
  contract(source: string, name: string): { abi: unknown; bytecode: string };
}

/** Imports resolve to this folder first, then to node_modules (OpenZeppelin). */
function findImport(file: string) {
  try {
    const local = path.join(here, file);
    return { contents: fs.readFileSync(fs.existsSync(local) ? local : require.resolve(file), 'utf8') };
  } catch {
    return { error: `not found: ${file}` };
  }
}

export function compile(sources: readonly string[]): Compiled {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(sources.map((source) => [source, { content: fs.readFileSync(path.join(here, source), 'utf8') }])),
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return {
    compiler: `solc ${solc.version()}`,
    contract(source, name) {
      const contract = output.contracts[source]![name]!;
      return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    },
  };
}

/** Writes `artifact` as `file` of this folder, as committed. */
export function writeArtifact(file: string, artifact: { compiler: string; [part: string]: unknown }): void {
  fs.writeFileSync(path.join(here, file), `${JSON.stringify(artifact, null, 2)}\n`);
  console.log(`wrote ${file} (${artifact.compiler})`);
}
