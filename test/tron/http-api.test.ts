import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tronTransactionKind } from '../../src/providers/chains/tron/http-api.js';
import { startFakeTronHttpApi, type FakeTronHttpApi } from '../support/tron/http-api.js';

let api: FakeTronHttpApi;
beforeAll(async () => {
  api = await startFakeTronHttpApi();
});
afterAll(async () => {
  await api.close();
});

describe("the node's HTTP API, asked what a transaction is", () => {
  it('answers the contract type gettransactionbyid gives for the bare transaction id', async () => {
    const txId = 'ab'.repeat(32);
    api.kinds.set(txId, 'TransferAssetContract');
    expect(await tronTransactionKind(api.url)(txId)).toBe('TransferAssetContract');
    expect(await tronTransactionKind(`${api.url}/`)('cd'.repeat(32))).toBe('TransferContract');
    expect(api.asked).toEqual([txId, 'cd'.repeat(32)]);
  });

  it('a transaction the node does not know (yet) is an error, never taken for another kind', async () => {
    const txId = 'ef'.repeat(32);
    api.kinds.set(txId, null);
    await expect(tronTransactionKind(api.url)(txId)).rejects.toThrow(`Tron HTTP API does not know transaction ${txId} yet`);
  });

  it('a failure names the call, never the URL (it may hold the provider key)', async () => {
    const unreachable = 'http://user:secret-password@127.0.0.1:9/secret-path-key?apikey=secret-query-key';
    const refused = await tronTransactionKind(unreachable)('ab'.repeat(32)).catch((error: Error) => error.message);
    expect(refused).toMatch(/^Tron HTTP API gettransactionbyid failed: /);
    expect(refused).not.toMatch(/secret|127\.0\.0\.1/);
    const wrongPath = await tronTransactionKind(`${api.url}/secret-path-key`)('ab'.repeat(32)).catch((error: Error) => error.message);
    expect(wrongPath).toBe('Tron HTTP API gettransactionbyid answered 404');
  });
});
