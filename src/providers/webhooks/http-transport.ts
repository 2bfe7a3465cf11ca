import { isIP, type LookupFunction } from 'node:net';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { KeyMode } from '../../domain/api-keys.js';
import { blockedAddressReason, blockedAmong, ipLiteral, resolveHost, schemeProblem, type Resolve } from './destination-policy.js';
import type { WebhookOutcome, WebhookRequest, WebhookTransport } from './transport.js';

export interface HttpWebhookTransportOptions {
  /** Bounds the whole attempt: connecting, the answer's headers and reading its body. */
  timeoutMs: number;
  /** How much of the answer's body is kept; the rest is never read. Default 4096. */
  maxResponseBytes?: number;
  /** Resolves live hostnames; its answer is both what is checked and what is connected to. Default: the system resolver. */
  resolve?: Resolve;
  /** Sent unless the request carries its own user-agent. */
  userAgent?: string;
}

/** Raised inside an agent's lookup, so the socket never opens. */
class DestinationRefused extends Error {}

/**
 * POSTs webhook deliveries over keep-alive connections, one pool per mode. Redirects are answers, not followed:
 * following one would send the signed body somewhere the endpoint's owner did not configure.
 *
 * Live deliveries reach only public unicast addresses over https. An IP literal is judged before connecting; a
 * hostname is judged in the agent's DNS lookup, so the addresses checked are the ones the socket connects to and
 * a rebinding answer between a check and the connection has nothing to slip through.
 */
export class HttpWebhookTransport implements WebhookTransport {
  private readonly agents: Record<KeyMode, Agent>;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: HttpWebhookTransportOptions) {
    this.maxResponseBytes = options.maxResponseBytes ?? 4096;
    // The request's signal already bounds connecting; this only stops an abandoned attempt lingering.
    const timeout = options.timeoutMs;
    this.agents = {
      test: new Agent({ connect: { timeout, lookup: guardedLookup(options.resolve ?? resolveHost, 'test') } }),
      live: new Agent({ connect: { timeout, lookup: guardedLookup(options.resolve ?? resolveHost, 'live') } }),
    };
  }

  async send(request: WebhookRequest): Promise<WebhookOutcome> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { kind: 'error', error: 'the URL does not parse' };
    }
    const refusal = preflightProblem(url, request.mode);
    if (refusal !== null) return { kind: 'error', error: refusal };

    try {
      const response = await undiciRequest(url, {
        method: 'POST',
        headers: this.headersFor(request.headers),
        body: request.body,
        dispatcher: this.agents[request.mode],
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      return { kind: 'response', status: response.statusCode, body: await readCapped(response.body, this.maxResponseBytes) };
    } catch (error) {
      return { kind: 'error', error: describe(error, url.hostname, this.options.timeoutMs) };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.agents.test.close(), this.agents.live.close()]);
  }

  private headersFor(headers: Record<string, string>): Record<string, string> {
    const { userAgent } = this.options;
    if (userAgent === undefined || Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) return headers;
    return { 'user-agent': userAgent, ...headers };
  }
}

/** What refuses the attempt before any connection is made. */
function preflightProblem(url: URL, mode: KeyMode): string | null {
  const scheme = schemeProblem(url, mode);
  if (scheme !== null) return scheme;
  // Sockets skip the lookup for IP literals, so the guarded lookup never sees them.
  const literal = ipLiteral(url);
  const reason = literal === null ? null : blockedAddressReason(literal, mode);
  return reason === null ? null : `destination refused: ${reason}`;
}

/**
 * A socket lookup that answers with `resolve`'s addresses only when none of them is blocked. Sockets ask for all
 * addresses (`all: true`) when they race IPv4 and IPv6, and for one otherwise; both shapes are answered.
 */
function guardedLookup(resolve: Resolve, mode: KeyMode): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const reason = blockedAmong(resolved, mode);
        if (reason !== null) return callback(new DestinationRefused(reason), '');
        const addresses = resolved
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => !options.family || entry.family === options.family);
        const first = addresses[0];
        if (first === undefined) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/** The body as text, up to maxBytes; leaving the loop early destroys the stream instead of draining the rest. */
async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const kept = chunk.subarray(0, maxBytes - size);
    chunks.push(kept);
    size += kept.length;
    if (size >= maxBytes) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNRESOLVED_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'ENODATA']);

/** Messages built from error codes only: undici's and Node's own texts can carry the URL or addresses we chose not to show. */
function describe(error: unknown, hostname: string, timeoutMs: number): string {
  if (error instanceof DestinationRefused) return `destination refused: ${error.message}`;
  if (error instanceof DOMException && error.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code === undefined) return 'request failed';
  if (TIMEOUT_CODES.has(code)) return `timed out after ${timeoutMs} ms`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (UNRESOLVED_CODES.has(code)) return `could not resolve ${hostname}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection closed by the receiver';
  if (/CERT|TLS|SSL|EPROTO/.test(code)) return `TLS failed (${code})`;
  return `request failed (${code})`;
}
