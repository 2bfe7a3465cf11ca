import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { Catalog } from '../src/domain/catalog.js';
import { liveEvmFrom } from '../src/providers/chains/live-evm.js';
import { TEST_XPUB } from './support/evm/live-app.js';

const catalog = Catalog.load();
const RPC_WITH_KEY = 'https://eth-mainnet.example.com/v2/secret-api-key';

describe('live EVM settings', () => {
  it('CONNECT_EVM_RPC_<NETWORK> maps to the catalog code (capitals and _ become lowercase and -)', () => {
    const config = loadConfig({ CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_ETHEREUM: RPC_WITH_KEY, CONNECT_EVM_RPC_BASE: 'http://127.0.0.1:8545' });
    expect(config.evm).toMatchObject({ xpub: TEST_XPUB, rpcUrls: { ethereum: RPC_WITH_KEY, base: 'http://127.0.0.1:8545' }, pollSeconds: 5 });
    expect(liveEvmFrom(config.evm, catalog)?.rpcUrls).toEqual(new Map([['ethereum', RPC_WITH_KEY], ['base', 'http://127.0.0.1:8545']]));
  });

  it('without any RPC URL live EVM is off, and an xpub alone changes nothing', () => {
    expect(liveEvmFrom(loadConfig({}).evm, catalog)).toBeNull();
    expect(liveEvmFrom(loadConfig({ CONNECT_EVM_XPUB: TEST_XPUB }).evm, catalog)).toBeNull();
  });

  it('an RPC URL without an xpub is refused at start', () => {
    expect(() => loadConfig({ CONNECT_EVM_RPC_ETHEREUM: RPC_WITH_KEY })).toThrow('CONNECT_EVM_RPC_ETHEREUM set without CONNECT_EVM_XPUB');
  });

  it('a URL that is not http(s) is refused without echoing it (it may carry an API key)', () => {
    expect(() => loadConfig({ CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_ETHEREUM: 'ftp://secret-api-key@x' })).toThrow(
      /^CONNECT_EVM_RPC_ETHEREUM must be an http\(s\) JSON-RPC URL$/,
    );
  });

  it('a network the catalog does not have, or whose addresses are not EVM, is refused at start', () => {
    expect(() => liveEvmFrom(loadConfig({ CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_FANTOM: RPC_WITH_KEY }).evm, catalog)).toThrow(
      'CONNECT_EVM_RPC_FANTOM names fantom, which is not a network of the catalog',
    );
    expect(() => liveEvmFrom(loadConfig({ CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_TRON: RPC_WITH_KEY }).evm, catalog)).toThrow(
      'CONNECT_EVM_RPC_TRON: tron is not an EVM network',
    );
  });

  it('an extended private key in CONNECT_EVM_XPUB is refused at start', () => {
    const xprv = 'xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U';
    expect(() => liveEvmFrom(loadConfig({ CONNECT_EVM_XPUB: xprv, CONNECT_EVM_RPC_ETHEREUM: RPC_WITH_KEY }).evm, catalog)).toThrow(/PRIVATE key/);
  });
});
