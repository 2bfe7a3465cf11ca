import type { KeyMode } from '../../domain/api-keys.js';

export interface WebhookRequest {
  url: string;
  /** live: https only, and only public unicast addresses; test (sandbox): http allowed, localhost allowed. */
  mode: KeyMode;
  headers: Record<string, string>;
  body: string;
}

/** What one attempt came to: an HTTP answer (any status), or no answer and why (short, human, never containing secrets or the URL's query string). */
export type WebhookOutcome = { kind: 'response'; status: number; body: string } | { kind: 'error'; error: string };

export interface WebhookTransport {
  send(request: WebhookRequest): Promise<WebhookOutcome>;
  close(): Promise<void>;
}
