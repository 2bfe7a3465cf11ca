import ipaddr from 'ipaddr.js';

/**
 * The client a per-address budget belongs to: an IPv4 address itself (an IPv4-mapped IPv6 address as its IPv4),
 * an IPv6 address its /64. One subscriber is given a /64 at least (RFC 6177), and picks any address in it at
 * will, so a budget per IPv6 address would be one per request for anyone who wants it.
 */
export function addressGroup(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}
