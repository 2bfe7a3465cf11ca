/**
 * A java-tron node's HTTP API (/wallet/*, /walletsolidity/*): JSON posted, JSON answered. Failures name the path
 * called and never the base URL (providers put API keys in it); a call slower than `timeoutMs` is abandoned.
 */
export type TronNodeCall = (path: string, body: Record<string, unknown>) => Promise<Record<string, unknown>>;

export function tronNodeHttp(baseUrl: string, timeoutMs: number, headers: Readonly<Record<string, string>> = {}, fetcher: typeof fetch = fetch): TronNodeCall {
  const base = baseUrl.replace(/\/+$/, '');
  return async (path, body) => {
    let response: Response;
    try {
      response = await fetcher(`${base}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      // eslint-disable-next-line preserve-caught-error -- the cause names the URL, which is kept out of errors
      throw new Error(`the Tron node did not answer ${path}${timedOut ? ` within ${timeoutMs} ms` : ''}`);
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) throw new Error(`the Tron node answered ${path} with HTTP ${response.status}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`the Tron node answered ${path} with no JSON`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`the Tron node answered ${path} with no JSON object`);
    // java-tron answers a request it could not process with 200 and {"Error": "..."}.
    if ('Error' in parsed) throw new Error(`the Tron node refused ${path}: ${String((parsed as { Error: unknown }).Error).slice(0, 200)}`);
    return parsed as Record<string, unknown>;
  };
}
