import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { Catalog } from '../../../src/domain/catalog.js';
import { liveEvmFrom } from '../../../src/providers/chains/live-evm.js';
import { HOT_WALLET, HOT_WALLET_KEY, TEST_XPUB } from '../../support/evm/live-app.js';

const catalog = Catalog.load();
const RPC_WITH_KEY = 'https://eth-mainnet.example.com/v2/secret-api-key';

describe('live EVM settings', () => {
  it('CONNECT_EVM_RPC_<NETWORK> maps to the catalog code (capitals and _ become lowercase and -)', () => {
    const config = loadConfig({ CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_ETHEREUM: RPC_WITH_KEY, CONNECT_EVM_RPC_BASE: 'http://127.0.0.1:8545' });
    expect(config.evm).toMatchObject({ xpub: TEST_XPUB, rpcUrls: { ethereum: RPC_WITH_KEY, base: 'http://127.0.0.1:8545' }, pollSeconds: 5 });
    expect(liveEvmFrom(config.evm, catalog)?.rpcUrls).toEqual(new Map([['ethereum', RPC_WITH_KEY], ['base', 'http://127.0.0.1:8545']]));
  });

  it('a stuck payout is rebroadcast after CONNECT_EVM_REBROADCAST_SECONDS, 120 unless set, never 0', () => {
    expect(loadConfig({}).evm.rebroadcastSeconds).toBe(120);
    expect(loadConfig({ CONNECT_EVM_REBROADCAST_SECONDS: '600' }).evm.rebroadcastSeconds).toBe(600);
    expect(() => loadConfig({ CONNECT_EVM_REBROADCAST_SECONDS: '0' })).toThrow(/CONNECT_EVM_REBROADCAST_SECONDS must be at least 1/);
  });

  it('a proof that a payout paid nothing is believed when seen again CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS later, 60 unless set; 0 allowed, never negative', () => {
    expect(loadConfig({}).evm.notSentConfirmSeconds).toBe(60);
    expect(loadConfig({ CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS: '0' }).evm.notSentConfirmSeconds).toBe(0);
    expect(() => loadConfig({ CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS: '-1' })).toThrow(/CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS must be a non-negative integer/);
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

  it('one signer at most: a key, a key file, or a remote signer URL with its address', () => {
    expect(loadConfig({}).evm.signer).toBeNull();
    expect(loadConfig({ CONNECT_EVM_SIGNER_KEY_FILE: '/run/secrets/hot' }).evm.signer).toEqual({ keyFile: '/run/secrets/hot' });
    expect(loadConfig({ CONNECT_EVM_SIGNER_URL: 'http://signer:9000', CONNECT_EVM_SIGNER_ADDRESS: HOT_WALLET }).evm.signer).toEqual({
      url: 'http://signer:9000',
      address: HOT_WALLET,
    });
    expect(() => loadConfig({ CONNECT_EVM_SIGNER_KEY: HOT_WALLET_KEY, CONNECT_EVM_SIGNER_KEY_FILE: '/k' })).toThrow(
      'Set one of CONNECT_EVM_SIGNER_KEY, CONNECT_EVM_SIGNER_KEY_FILE: they are alternative signers',
    );
    expect(() => loadConfig({ CONNECT_EVM_SIGNER_URL: 'http://signer:9000' })).toThrow('CONNECT_EVM_SIGNER_URL needs CONNECT_EVM_SIGNER_ADDRESS');
  });

  it('a malformed signer key is refused at start without being echoed', () => {
    const config = loadConfig({ CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_ETHEREUM: RPC_WITH_KEY, CONNECT_EVM_SIGNER_KEY: '0xsecret-not-a-key' });
    expect(() => liveEvmFrom(config.evm, catalog)).toThrow(/^The EVM signer key must be 0x followed by 64 hex digits$/);
  });
});
