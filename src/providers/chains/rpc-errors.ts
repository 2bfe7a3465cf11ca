import { BaseError } from 'viem';
import { withoutUrls } from '../../domain/text.js';

/**
 * The error without its endpoint: viem's messages name the RPC URL (providers put API keys in its path) and the
 * request body. What is left is viem's short message and the node's own words, fit for logs and for a payout's
 * failure reason.
 */
export function withoutEndpoint(error: unknown): unknown {
  if (!(error instanceof BaseError)) return error;
  const text = error.details && !error.shortMessage.includes(error.details) ? `${error.shortMessage} ${error.details}` : error.shortMessage;
  return Object.assign(new Error(text), { name: error.name });
}

/** The same function, its failures without the endpoint. */
export function hidingEndpoint<Args extends unknown[], Result>(work: (...args: Args) => Promise<Result>): (...args: Args) => Promise<Result> {
  return (...args) =>
    work(...args).catch((error: unknown) => {
      throw withoutEndpoint(error);
    });
}

/** What an error says, without its endpoint nor any URL: for a log line, a payout's reason, a stored failure. */
export function endpointFreeMessage(error: unknown): string {
  const clean = withoutEndpoint(error);
  return withoutUrls(clean instanceof Error ? clean.message : String(clean));
}
