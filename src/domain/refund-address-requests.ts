import { createHash, randomBytes } from 'node:crypto';

/**
 * A refund address request: a single-use link the partner sends the payer, on which the payer chooses one of
 * the networks the intent's money came on and gives an address of a wallet they control.
 */
export type StoredRefundAddressStatus = 'open' | 'submitted' | 'cancelled';
/** `expired` is read, not stored: an open request past its `expires_at`. */
export type RefundAddressStatus = StoredRefundAddressStatus | 'expired';

/** One asset/network pair the payer may choose: one the intent received money on. */
export interface RefundPair {
  asset: string;
  network: string;
}

/** Where links open: a hosted page under the payment page's `/pay` prefix (src/web/refund-link-routes.ts). */
export const REFUND_LINK_PATH = '/pay/refund';

export const REFUND_LINK_TTL_SECONDS = { default: 7 * 24 * 3600, min: 15 * 60, max: 30 * 24 * 3600 } as const;

/** 32 random bytes, base64url: 256 bits, so a link cannot be guessed; the only capability the page asks for. */
const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const newLinkToken = () => randomBytes(TOKEN_BYTES).toString('base64url');

/** Whether a string could be a link token at all: malformed ones are refused before any lookup. */
export const isLinkToken = (value: string) => TOKEN_PATTERN.test(value);

/** Stored instead of the token, so a copy of the database opens no page. */
export const hashLinkToken = (token: string) => createHash('sha256').update(token).digest('hex');

export function refundAddressStatus(request: { status: StoredRefundAddressStatus; expires_at: Date }, now: Date): RefundAddressStatus {
  return request.status === 'open' && now >= request.expires_at ? 'expired' : request.status;
}

/** The form's value for a pair (`USDC/ethereum`) and back; an unknown or malformed value is no pair. */
export const pairValue = (pair: RefundPair) => `${pair.asset}/${pair.network}`;
export const findPair = <P extends RefundPair>(pairs: P[], value: string | undefined): P | null => pairs.find((p) => pairValue(p) === value) ?? null;
