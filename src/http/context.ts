import type { AuthLockouts } from './auth-failures.js';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import type { LiveEvm } from '../providers/chains/live-evm.js';
import type { LiveSolana } from '../providers/chains/solana/live-solana.js';
import type { LiveTron } from '../providers/chains/live-tron.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import type { WebhookTransport } from '../providers/webhooks/transport.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Database } from '../store/database.js';
import type { Addresses } from '../use-cases/addresses.js';
import type { Balances } from '../use-cases/balances.js';
import type { Payouts } from '../use-cases/payouts.js';
import type { Refunds } from '../use-cases/refunds.js';
import type { RefundAddressRequests } from '../use-cases/refund-address-requests.js';
import type { EventLog } from '../use-cases/events.js';
import type { OperatorService } from '../use-cases/operator.js';
import type { OperatorPayouts } from '../use-cases/operator-payouts.js';
import type { PaymentIntents } from '../use-cases/payment-intents.js';
import type { Reconciliation } from '../use-cases/reconciliation.js';
import type { DepositSimulator } from '../use-cases/simulator.js';
import type { TransactionReports } from '../use-cases/transaction-reports.js';
import type { Transactions } from '../use-cases/transactions.js';
import type { Webhooks } from '../use-cases/webhooks.js';
import type { CallerCache } from './caller-cache.js';
import type { Idempotency } from './idempotency.js';
import type { CursorCodec } from './pagination.js';
import type { KeyRateLimiter } from './rate-limit.js';

/** Everything routes need, built once at start-up and handed down. */
export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  catalog: Catalog;
  cursors: CursorCodec;
  limiter: KeyRateLimiter;
  /** Who a key is, cached while change notifications are heard; a pass-through until started. */
  callers: CallerCache;
  idempotency: Idempotency;
  /** Failed authentications per client address and surface (docs/authentication.md). */
  lockouts: AuthLockouts;
  operator: OperatorService;
  /** The operator's look at live payouts, and their cancellation. */
  operatorPayouts: OperatorPayouts;
  paymentIntents: PaymentIntents;
  addresses: Addresses;
  /** Refund addresses the payer gives through a single-use link (docs/refunds.md, "The refund address the payer gives"). */
  refundAddressRequests: RefundAddressRequests;
  simulator: DepositSimulator;
  transactions: Transactions;
  /** Statements: ledger movements between opening and closing balances (docs/reports.md). */
  reports: TransactionReports;
  events: EventLog;
  balances: Balances;
  /** The price source (a feed is an outside call: read it before a transaction, never inside one). */
  prices: PriceSource;
  payouts: Payouts;
  /** Refunds of payment intents: quotes of their own, executed and worked as payouts of kind refund. */
  refunds: Refunds;
  webhooks: Webhooks;
  /** This context's own metrics registry (docs/metrics.md). */
  metrics: Metrics;
  /** How deliveries reach receivers (HTTP, with the live-mode destination rules). */
  webhookTransport: WebhookTransport;
  /** The live EVM setup (xpub, RPC endpoints), null when live EVM is not configured (docs/live-evm.md). */
  liveEvm: LiveEvm | null;
  /** Live Solana networks and their endpoints; null: live keys are offered no Solana network. */
  liveSolana: LiveSolana | null;
  /** The live Tron setup (xpub, JSON-RPC endpoints), null when live Tron is not configured (docs/live-tron.md). */
  liveTron: LiveTron | null;
  /** The live chains' balances against the ledger (docs/reconciliation.md). */
  reconciliation: Reconciliation;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
