import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { Catalog } from '../../../src/domain/catalog.js';
import { liveTronFrom } from '../../../src/providers/chains/live-tron.js';
import { TronXpub } from '../../../src/providers/chains/tron/xpub.js';
import { TEST_XPUB } from '../../support/evm/live-app.js';
import { TEST_TRON_XPUB } from '../../support/tron/xpub.js';

const catalog = Catalog.load();
const TRONGRID = 'https://api.trongrid.io/jsonrpc?apikey=secret-api-key';

/** What the service starts with: the Tron settings, checked against the catalog. */
function start(env: Record<string, string>) {
  const config = loadConfig(env);
  return liveTronFrom(config.tron, config.tronPayouts, catalog);
}

describe('live Tron settings', () => {
  it('CONNECT_TRON_RPC_<NETWORK> maps to the catalog code, and the xpub derives T… addresses', () => {
    const config = loadConfig({ CONNECT_TRON_XPUB: TEST_TRON_XPUB, CONNECT_TRON_RPC_TRON: TRONGRID });
    expect(config.tron).toEqual({ xpub: TEST_TRON_XPUB, rpcUrls: { tron: TRONGRID }, apiKeys: {} });
    const live = liveTronFrom(config.tron, config.tronPayouts, catalog)!;
    expect(live.rpcUrls).toEqual(new Map([['tron', TRONGRID]]));
    expect(live.xpub.address(0)).toBe(TronXpub.parse(TEST_TRON_XPUB).address(0));
    expect(live.xpub.address(0)).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });

  it('the HTTP API that tells TRX from TRC-10 transfers is the JSON-RPC URL without /jsonrpc, or CONNECT_TRON_HTTP_<NETWORK> (shared with payouts)', () => {
    expect(start({ CONNECT_TRON_XPUB: TEST_TRON_XPUB, CONNECT_TRON_RPC_TRON: TRONGRID })!.apiUrls).toEqual(new Map([['tron', 'https://api.trongrid.io/?apikey=secret-api-key']]));
    const ownNode = { CONNECT_TRON_XPUB: TEST_TRON_XPUB, CONNECT_TRON_RPC_TRON: 'http://10.0.0.5:8545/rpc' };
    expect(() => start(ownNode)).toThrow(/^CONNECT_TRON_RPC_TRON does not end in \/jsonrpc: set CONNECT_TRON_HTTP_TRON to the node's HTTP API/);
    expect(start({ ...ownNode, CONNECT_TRON_HTTP_TRON: 'http://10.0.0.5:8090' })!.apiUrls).toEqual(new Map([['tron', 'http://10.0.0.5:8090']]));
  });

  it('without an RPC URL live Tron is off, and an xpub alone changes nothing', () => {
    expect(start({})).toBeNull();
    expect(start({ CONNECT_TRON_XPUB: TEST_TRON_XPUB })).toBeNull();
  });

  it('an RPC URL without CONNECT_TRON_XPUB is refused at start, even with an EVM xpub', () => {
    expect(() => loadConfig({ CONNECT_TRON_RPC_TRON: TRONGRID, CONNECT_EVM_XPUB: TEST_XPUB })).toThrow(
      'CONNECT_TRON_RPC_TRON set without CONNECT_TRON_XPUB: live deposit addresses derive from it',
    );
  });

  it('a URL that is not http(s) is refused without echoing it (it may carry an API key)', () => {
    expect(() => loadConfig({ CONNECT_TRON_XPUB: TEST_TRON_XPUB, CONNECT_TRON_RPC_TRON: 'ftp://secret-api-key@x' })).toThrow(
      /^CONNECT_TRON_RPC_TRON must be an http\(s\) JSON-RPC URL$/,
    );
  });

  it('a Tron RPC URL for a network the catalog lacks, or whose addresses are not Tron, is refused at start without the URL', () => {
    const refusal = (env: Record<string, string>) => () => start({ CONNECT_TRON_XPUB: TEST_TRON_XPUB, ...env });
    expect(refusal({ CONNECT_TRON_RPC_NILE: TRONGRID })).toThrow(/^CONNECT_TRON_RPC_NILE names nile, which is not a network of the catalog$/);
    expect(refusal({ CONNECT_TRON_RPC_ETHEREUM: TRONGRID })).toThrow(/^CONNECT_TRON_RPC_ETHEREUM: ethereum is not a Tron network \(its addresses are evm\)$/);
    expect(refusal({ CONNECT_TRON_RPC_SOLANA: TRONGRID })).toThrow(/^CONNECT_TRON_RPC_SOLANA: solana is not a Tron network \(its addresses are solana\)$/);
  });

  it('an extended private key in CONNECT_TRON_XPUB is refused at start and never echoed', () => {
    const xprv = 'xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U';
    const starting = () => start({ CONNECT_TRON_XPUB: xprv, CONNECT_TRON_RPC_TRON: TRONGRID });
    expect(starting).toThrow(/CONNECT_TRON_XPUB.*PRIVATE key/);
    expect(starting).not.toThrow(xprv.slice(4, 30));
  });

  it('EVM and Tron settings are read side by side, each with its own xpub', () => {
    const config = loadConfig({ CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_ETHEREUM: 'http://127.0.0.1:8545', CONNECT_TRON_XPUB: TEST_TRON_XPUB, CONNECT_TRON_RPC_TRON: TRONGRID });
    expect(config.evm.rpcUrls).toEqual({ ethereum: 'http://127.0.0.1:8545' });
    expect(config.tron.rpcUrls).toEqual({ tron: TRONGRID });
  });
});
