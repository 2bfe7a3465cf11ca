/** The part of autocannon 9's programmatic API the bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface Request extends RequestParams {
    /**
     * Called before every request; the returned object is what gets sent. `context` belongs to the connection
     * and is reset before the first request of `requests`; returning null restarts from that first request.
     */
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null;
    /** Called with every answer to this request, its body whole. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void;
  }

  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    requests?: Request[];
    /** Requests per second across all connections; unset, as fast as answers come. */
    overallRate?: number;
  }

  /** Percentiles of a histogram; latency in milliseconds, requests per one-second sample. */
  export interface Stats {
    average: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    requests: Stats & { total: number; sent: number };
    latency: Stats;
    duration: number;
    /** Connection errors and timeouts; `timeouts` counts the latter alone. */
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  export default function autocannon(options: Options): Instance;
}
