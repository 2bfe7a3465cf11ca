/**
 * Regenerates sweep-forwarders.json (ABI and bytecode of ForwarderFactory.sol and SweepForwarder.sol):
 * `npx tsx test/support/evm/build-forwarders.ts`. The artifact is committed, so the sweep bench
 * (bench/sweep-mechanics.ts) never compiles.
 */
import { compile, writeArtifact } from './solidity.js';

const compiled = compile(['SweepForwarder.sol', 'ForwarderFactory.sol']);
writeArtifact('sweep-forwarders.json', {
  compiler: compiled.compiler,
  ForwarderFactory: compiled.contract('ForwarderFactory.sol', 'ForwarderFactory'),
  SweepForwarder: compiled.contract('SweepForwarder.sol', 'SweepForwarder'),
});
