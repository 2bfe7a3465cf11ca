import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createOrganization, post, send } from './service.js';
import type { WebhookStage } from './webhooks.js';

/** Intents sent first and not counted: the service's deposit path is cold until then. */
const WARMUP_INTENTS = 5;
const PAUSE_MS = 20;
/** An event that has not arrived by then fails the bench. */
const ARRIVAL_TIMEOUT_MS = 30_000;

export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

export interface LatencyResult {
  intents: number;
  warmupIntents: number;
  pauseMs: number;
  /** From just before POST simulate-deposit to the receiver's arrival of the intent's payment.received. */
  receivedMs: Percentiles;
  /** The same, to the arrival of payment.completed. */
  completedMs: Percentiles;
  /** The POST simulate-deposit alone, until its answer: the part of the above the workers play no part in. */
  depositAnswerMs: Percentiles;
  /** How many intents' events took longer than `thresholdMs` (the goal's p99) to arrive. */
  slow: { thresholdMs: number; received: number; completed: number };
}

/**
 * Low-load latency: intents one after the other in an organization of their own, with an endpoint at the
 * receiver's /latency path. Each intent is created (not timed), then the clock runs from just before its
 * simulated full deposit to the arrival of each of its two events.
 */
export async function measureLatency(stage: WebhookStage, intents: number, thresholdMs: number): Promise<LatencyResult> {
  const { baseUrl, adminToken, receiver } = stage;
  const organization = await createOrganization(baseUrl, adminToken, 'Benchmark webhooks latency');
  const url = `${receiver.baseUrl}/latency`;
  await send('PUT', `${baseUrl}/admin/v1/organizations/${organization.id}/webhooks/test`, adminToken, { url });

  const arrivals = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const stopListening = receiver.onArrival((arrival) => {
    if (arrival.path !== '/latency' || !arrival.relatedTo) return;
    const key = `${arrival.relatedTo} ${arrival.type}`;
    if (!arrivals.has(key)) arrivals.set(key, arrival.at);
    waiters.get(key)?.();
  });
  const arrivalOf = async (intentId: string, type: string): Promise<number> => {
    const key = `${intentId} ${type}`;
    if (!arrivals.has(key)) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${type} of intent ${intentId} did not arrive within ${ARRIVAL_TIMEOUT_MS / 1000} s`)),
          ARRIVAL_TIMEOUT_MS,
        );
        waiters.set(key, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      waiters.delete(key);
    }
    return arrivals.get(key)!;
  };

  const received: number[] = [];
  const completed: number[] = [];
  const answered: number[] = [];
  try {
    for (let i = 0; i < WARMUP_INTENTS + intents; i++) {
      const intent = await post<{ id: string }>(
        `${baseUrl}/connect/v1/payment-intents`,
        organization.key,
        { amount: '10', currencies: ['USDC'] },
        { 'idempotency-key': randomUUID() },
      );
      const started = performance.now();
      await post(`${baseUrl}/connect/v1/test/payment-intents/${intent.id}/simulate-deposit`, organization.key, undefined);
      const answeredAt = performance.now();
      const receivedAt = await arrivalOf(intent.id, 'payment_intent.payment_received');
      const completedAt = await arrivalOf(intent.id, 'payment_intent.completed');
      if (i >= WARMUP_INTENTS) {
        answered.push(answeredAt - started);
        received.push(receivedAt - started);
        completed.push(completedAt - started);
      }
      await sleep(PAUSE_MS);
    }
  } finally {
    stopListening();
  }
  return {
    intents,
    warmupIntents: WARMUP_INTENTS,
    pauseMs: PAUSE_MS,
    receivedMs: percentiles(received),
    completedMs: percentiles(completed),
    depositAnswerMs: percentiles(answered),
    slow: {
      thresholdMs,
      received: received.filter((ms) => ms > thresholdMs).length,
      completed: completed.filter((ms) => ms > thresholdMs).length,
    },
  };
}

/** Nearest-rank percentiles, in ms to one decimal. */
function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! * 10) / 10;
  return { p50: at(0.5), p99: at(0.99), max: at(1) };
}
