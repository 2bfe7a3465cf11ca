import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { KeyMode } from '../../domain/api-keys.js';

/** Every address a hostname resolves to. */
export type Resolve = (hostname: string) => Promise<string[]>;

/** The system resolver (hosts file included), as sockets use it by default. */
export const resolveHost: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

const MAX_URL_LENGTH = 2048;

const RANGE_DESCRIPTIONS: Record<string, string> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a unique local address',
  reserved: 'a reserved address',
};

/** 2000::/3: the only IPv6 space allocated for global unicast; ipaddr.js calls the rest of ::/0 "unicast" too. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * What a sandbox endpoint may reach beyond public addresses: the developer's own machine and network (the local
 * receiver of the README's walk-through). Link-local addresses (where clouds serve instance metadata and
 * credentials), the unspecified, broadcast, multicast and reserved ones stay refused.
 */
const SANDBOX_ALLOWED_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

/** Cloud instance-metadata services outside the link-local range (Alibaba's, AWS's IPv6 one): refused in every mode. */
const METADATA_ADDRESSES = ['100.100.100.200', 'fd00:ec2::254'].map((ip) => ipaddr.parse(ip).toNormalizedString());

/**
 * Why a delivery in `mode` must not reach this address, or null. Live: only public unicast addresses. Sandbox:
 * those, and loopback and private ones. Special-purpose ranges that embed another address (6to4, Teredo, NAT64)
 * are refused whole rather than decoded, since what they lead to depends on gateways outside our view.
 */
export function blockedAddressReason(ip: string, mode: KeyMode = 'live'): string | null {
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
  // An IPv4-mapped IPv6 address reaches the IPv4 address it carries.
  const address = ipaddr.process(ip);
  if (METADATA_ADDRESSES.includes(address.toNormalizedString())) return `${address.toString()} is a cloud instance-metadata address`;
  const range = address.range();
  if (mode === 'test' && SANDBOX_ALLOWED_RANGES.has(range)) return null;
  if (range !== 'unicast') return `${address.toString()} is ${RANGE_DESCRIPTIONS[range] ?? `in the special-purpose range ${range}`}`;
  if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_V6)) return `${address.toString()} is not a global unicast address`;
  return null;
}

/** The first reason any of the addresses is refused: one bad answer is enough, as a socket may use any of them. */
export function blockedAmong(addresses: readonly string[], mode: KeyMode = 'live'): string | null {
  for (const address of addresses) {
    const reason = blockedAddressReason(address, mode);
    if (reason !== null) return reason;
  }
  return null;
}

/** The host when it is an IP literal (brackets removed), decided as sockets decide whether to resolve it. */
export function ipLiteral(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}

/** Scheme rules: http or https, and live endpoints https only. */
export function schemeProblem(url: URL, mode: KeyMode): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the URL must use http or https';
  if (mode === 'live' && url.protocol !== 'https:') return 'live endpoints must use https';
  return null;
}

/**
 * What is wrong with an endpoint URL for mode, or null. Checked when the endpoint is configured; deliveries check
 * the addresses they connect to again, since DNS answers change. A hostname that does not resolve (yet) is
 * accepted for that reason.
 */
export async function checkDestination(url: string, mode: KeyMode, resolve: Resolve): Promise<string | null> {
  if (url.length > MAX_URL_LENGTH) return `the URL is longer than ${MAX_URL_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'the URL does not parse';
  }
  const scheme = schemeProblem(parsed, mode);
  if (scheme !== null) return scheme;
  if (parsed.username !== '' || parsed.password !== '') return 'the URL must not contain a username or password';

  const literal = ipLiteral(parsed);
  if (literal !== null) return blockedAddressReason(literal, mode);
  if (isLocalhostName(parsed.hostname)) return mode === 'test' ? null : `${parsed.hostname} is a local name`;
  let addresses: string[];
  try {
    addresses = await resolve(parsed.hostname);
  } catch {
    return null;
  }
  return blockedAmong(addresses, mode);
}

/** Resolvers answer these from the machine itself whatever DNS says (RFC 6761). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name === 'localhost' || name.endsWith('.localhost');
}
