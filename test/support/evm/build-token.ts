/**
 * Regenerates test-usdc.json (ABI and bytecode of TestUSDC.sol): `npx tsx test/support/evm/build-token.ts`. The
 * artifact is committed, so tests never compile.
 */
import { compile, writeArtifact } from './solidity.js';

const compiled = compile(['TestUSDC.sol']);
writeArtifact('test-usdc.json', { compiler: compiled.compiler, ...compiled.contract('TestUSDC.sol', 'TestUSDC') });
