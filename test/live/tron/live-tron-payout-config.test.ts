import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { Catalog } from '../../../src/domain/catalog.js';
import { localTronSigner } from '../../../src/providers/chains/tron/signer.js';
import { TronDriver } from '../../../src/providers/chains/tron/payout-driver.js';
import { HOT_WALLET, HOT_WALLET_KEY } from '../../support/tron/live-payouts.js';

const NODE_WITH_KEY = 'https://tron.example/api-key-12345';

describe('live Tron payout settings', () => {
  it('CONNECT_TRON_HTTP_<NETWORK> maps to the catalog code; expiration 120 s, 3 signings, expiries confirmed 60 s apart and a 10 s timeout unless set', () => {
    expect(loadConfig({ CONNECT_TRON_HTTP_TRON: NODE_WITH_KEY }).tronPayouts).toEqual({
      httpUrls: { tron: NODE_WITH_KEY },
      signer: null,
      timeoutMs: 10_000,
      expirationSeconds: 120,
      maxSignings: 3,
      expiryConfirmSeconds: 60,
    });
    expect(loadConfig({ CONNECT_TRON_PAYOUT_EXPIRY_CONFIRM_SECONDS: '0' }).tronPayouts.expiryConfirmSeconds).toBe(0);
    expect(() => loadConfig({ CONNECT_TRON_PAYOUT_EXPIRY_CONFIRM_SECONDS: '-1' })).toThrow(/CONNECT_TRON_PAYOUT_EXPIRY_CONFIRM_SECONDS must be a non-negative integer/);
  });

  it('one signer at most: a key or a key file', () => {
    expect(loadConfig({ CONNECT_TRON_SIGNER_KEY: HOT_WALLET_KEY }).tronPayouts.signer).toEqual({ key: HOT_WALLET_KEY });
    expect(loadConfig({ CONNECT_TRON_SIGNER_KEY_FILE: '/run/secrets/tron' }).tronPayouts.signer).toEqual({ keyFile: '/run/secrets/tron' });
    expect(() => loadConfig({ CONNECT_TRON_SIGNER_KEY: HOT_WALLET_KEY, CONNECT_TRON_SIGNER_KEY_FILE: '/k' })).toThrow(/Set one of CONNECT_TRON_SIGNER_KEY, CONNECT_TRON_SIGNER_KEY_FILE/);
  });

  it('a URL that is not http(s), or an expiration java-tron would refuse (over 24 h), is refused at start without echoing the URL', () => {
    expect(() => loadConfig({ CONNECT_TRON_HTTP_TRON: 'ftp://secret@node' })).toThrow(/^CONNECT_TRON_HTTP_TRON must be an http\(s\) [^@]*$/);
    expect(() => loadConfig({ CONNECT_TRON_PAYOUT_EXPIRATION_SECONDS: '86401' })).toThrow(/at most 86400/);
  });

  it('a malformed key is refused without being echoed; a good one signs as its T… address', () => {
    expect(() => localTronSigner('0xsecret-not-a-key')).toThrow(/^The Tron signer key must be 64 hex digits \(0x optional\)$/);
    expect(localTronSigner(`0x${HOT_WALLET_KEY}`).address).toBe(HOT_WALLET);
    expect(HOT_WALLET).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });

  it('a node that does not answer fails the call without naming its URL', async () => {
    const driver = new TronDriver(Catalog.load(), new Map([['tron', 'http://127.0.0.1:9/api-key-12345']]), localTronSigner(HOT_WALLET_KEY), { expirationSeconds: 60, timeoutMs: 1_000 });
    const error = (await driver.finalPoint('tron').catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('the Tron node did not answer /walletsolidity/getnowblock');
    expect(error.message).not.toContain('api-key');
    expect(error.cause).toBeUndefined();
  });
});
