import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'connect_dashboard';
/** A dashboard session lasts a working day; signing in again is cheap. */
export const SESSION_SECONDS = 8 * 3600;

export interface Session {
  id: string;
  expiresAt: Date;
}

const digest = (value: string) => createHash('sha256').update(value).digest();
const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/**
 * Dashboard sessions, kept in the cookie itself: `expiry.id.mac`, the MAC made with a key derived from the
 * operator token. So every instance accepts the session without shared state, and changing the operator token
 * ends every session. The CSRF token of a session is derived the same way from its id: forms carry it, and a
 * page of another site can neither read it nor guess it.
 */
export class DashboardSessions {
  private readonly key: Buffer;
  private readonly tokenDigest: Buffer;

  constructor(operatorToken: string) {
    this.key = createHmac('sha256', operatorToken).update('connect-dashboard-sessions').digest();
    this.tokenDigest = digest(operatorToken);
  }

  /** Compared as digests in constant time: neither length nor content leaks through timing. */
  isOperatorToken(candidate: string): boolean {
    return timingSafeEqual(digest(candidate), this.tokenDigest);
  }

  /** A new session's cookie value. */
  open(now: Date): string {
    const expiry = Math.floor(now.getTime() / 1000) + SESSION_SECONDS;
    const payload = `${expiry}.${randomBytes(18).toString('base64url')}`;
    return `${payload}.${this.mac(payload)}`;
  }

  /** The session a cookie value carries, or null when it is forged, altered or expired. */
  verify(value: string | undefined, now: Date): Session | null {
    const [expiry, id, mac] = (value ?? '').split('.');
    if (!expiry || !id || !mac || !sameBytes(Buffer.from(mac), Buffer.from(this.mac(`${expiry}.${id}`)))) return null;
    const expiresAt = new Date(Number(expiry) * 1000);
    return expiresAt.getTime() > now.getTime() ? { id, expiresAt } : null;
  }

  csrfToken(session: Session): string {
    return this.mac(`csrf.${session.id}`);
  }

  isCsrfToken(session: Session, candidate: unknown): boolean {
    return typeof candidate === 'string' && sameBytes(Buffer.from(candidate), Buffer.from(this.csrfToken(session)));
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure behind https. */
export function sessionCookie(value: string, secure: boolean, maxAgeSeconds = SESSION_SECONDS): string {
  return `${SESSION_COOKIE}=${value}; Path=/admin; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
