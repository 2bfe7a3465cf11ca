/**
 * The one call the Tron watcher makes to the node's HTTP API: the contract type of a transaction
 * (`/wallet/gettransactionbyid`). Tron's JSON-RPC reports a TRC-10 transfer (TransferAssetContract) exactly as a
 * TRX one (TransferContract): same `to`, and the token amount as `value`. Anybody can issue a TRC-10 token, so a
 * native deposit is credited only once the HTTP API says it moved TRX.
 */
export type TransactionKind = (txId: string) => Promise<string>;

export function tronTransactionKind(apiUrl: string, headers: Readonly<Record<string, string>> = {}, timeoutMs = 10_000): TransactionKind {
  const base = new URL(apiUrl);
  const endpoint = new URL(`${base.pathname.replace(/\/+$/, '')}/wallet/gettransactionbyid${base.search}`, base);
  return async (txId) => {
    // The URL may carry an API key: failures name the call, never the endpoint.
    const response = await fetch(endpoint, { method: 'POST', headers: { ...headers }, body: JSON.stringify({ value: txId }), signal: AbortSignal.timeout(timeoutMs) }).catch((error: unknown) => {
      throw new Error(`Tron HTTP API gettransactionbyid failed: ${error instanceof Error ? error.name : 'unknown error'}`);
    });
    if (!response.ok) throw new Error(`Tron HTTP API gettransactionbyid answered ${response.status}`);
    const body = (await response.json()) as { raw_data?: { contract?: { type?: unknown }[] } };
    const type = body.raw_data?.contract?.[0]?.type;
    // java-tron answers {} for an id it does not know: a node behind the one that served the block. Thrown, so the
    // tick reads the block again later, rather than taken for "not TRX" and the deposit passed over for good.
    if (typeof type !== 'string') throw new Error(`Tron HTTP API does not know transaction ${txId} yet`);
    return type;
  };
}
