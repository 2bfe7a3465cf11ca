import { describe, expect, it } from 'vitest';
import { blockedAddressReason, checkDestination } from '../../../src/providers/webhooks/destination-policy.js';
import { scriptedResolver, unresolvable } from './scripted-resolver.js';

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['::1', '::1 is a loopback address'],
    ['10.1.2.3', '10.1.2.3 is a private address'],
    ['172.16.0.1', '172.16.0.1 is a private address'],
    ['192.168.1.1', '192.168.1.1 is a private address'],
    ['169.254.169.254', '169.254.169.254 is a link-local address'],
    ['fe80::1', 'fe80::1 is a link-local address'],
    ['fd00:ec2::254', 'fd00:ec2::254 is a cloud instance-metadata address'],
    ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT address'],
    ['0.0.0.0', '0.0.0.0 is the unspecified address'],
    ['::', ':: is the unspecified address'],
    ['224.0.0.1', '224.0.0.1 is a multicast address'],
    ['ff02::1', 'ff02::1 is a multicast address'],
    ['255.255.255.255', '255.255.255.255 is the broadcast address'],
    ['240.0.0.1', '240.0.0.1 is a reserved address'],
  ])('refuses every range that is not public unicast: %s', (ip, reason) => {
    expect(blockedAddressReason(ip)).toBe(reason);
  });

  it('judges an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(blockedAddressReason('::ffff:127.0.0.1')).toBe('127.0.0.1 is a loopback address');
    expect(blockedAddressReason('::ffff:a00:1')).toBe('10.0.0.1 is a private address');
    expect(blockedAddressReason('::ffff:8.8.8.8')).toBeNull();
  });

  it('refuses 6to4, Teredo and NAT64 addresses whole, since they can embed a private IPv4 address', () => {
    expect(blockedAddressReason('2002:7f00:1::')).toBe('2002:7f00:1:: is in the special-purpose range 6to4');
    expect(blockedAddressReason('2001:0:4136:e378:8000:63bf:f5ff:fffe')).toMatch(/special-purpose range teredo$/);
    expect(blockedAddressReason('64:ff9b::7f00:1')).toMatch(/special-purpose range rfc6052$/);
  });

  it('refuses IPv6 outside global unicast space (2000::/3)', () => {
    expect(blockedAddressReason('::7f00:1')).toBe('::7f00:1 is not a global unicast address');
  });

  it('allows public unicast addresses', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) expect(blockedAddressReason(ip)).toBeNull();
  });

  it('refuses what is not an IP address', () => {
    expect(blockedAddressReason('example.com')).toBe('example.com is not an IP address');
  });
});

describe('checkDestination', () => {
  const publicHost = () => scriptedResolver(['93.184.216.34']);

  it('refuses a URL that does not parse', async () => {
    expect(await checkDestination('not a url', 'test', publicHost())).toBe('the URL does not parse');
  });

  it('allows only http and https', async () => {
    expect(await checkDestination('ftp://example.com/hooks', 'test', publicHost())).toBe('the URL must use http or https');
  });

  it('requires https in live mode', async () => {
    expect(await checkDestination('http://example.com/hooks', 'live', publicHost())).toBe('live endpoints must use https');
    expect(await checkDestination('https://example.com/hooks', 'live', publicHost())).toBeNull();
  });

  it('refuses a username or password in the URL', async () => {
    const problem = 'the URL must not contain a username or password';
    expect(await checkDestination('https://user:secret@example.com/hooks', 'live', publicHost())).toBe(problem);
    expect(await checkDestination('http://user@localhost/hooks', 'test', publicHost())).toBe(problem);
  });

  it('refuses URLs longer than 2048 characters', async () => {
    const url = `https://example.com/${'a'.repeat(2048)}`;
    expect(await checkDestination(url, 'live', publicHost())).toBe('the URL is longer than 2048 characters');
  });

  it('judges live IP literals directly, without resolving', async () => {
    const resolve = publicHost();
    expect(await checkDestination('https://127.0.0.1/hooks', 'live', resolve)).toBe('127.0.0.1 is a loopback address');
    expect(await checkDestination('https://[::ffff:169.254.169.254]/', 'live', resolve)).toBe('169.254.169.254 is a link-local address');
    expect(await checkDestination('https://8.8.8.8/hooks', 'live', resolve)).toBeNull();
    expect(resolve.asked).toEqual([]);
  });

  it('refuses localhost and *.localhost in live mode, without resolving', async () => {
    const resolve = publicHost();
    expect(await checkDestination('https://localhost/hooks', 'live', resolve)).toBe('localhost is a local name');
    expect(await checkDestination('https://api.localhost./hooks', 'live', resolve)).toBe('api.localhost. is a local name');
    expect(resolve.asked).toEqual([]);
  });

  it('refuses a live hostname when any of its addresses is blocked', async () => {
    const resolve = scriptedResolver(['93.184.216.34', '10.0.0.7']);
    expect(await checkDestination('https://hooks.example.com/in', 'live', resolve)).toBe('10.0.0.7 is a private address');
    expect(resolve.asked).toEqual(['hooks.example.com']);
  });

  it('accepts a live hostname that does not resolve yet', async () => {
    expect(await checkDestination('https://not-yet.example.com/in', 'live', unresolvable())).toBeNull();
  });

  it('accepts loopback and private hosts in sandbox (the local receiver of the walk-through), localhost without resolving', async () => {
    const resolve = publicHost();
    expect(await checkDestination('http://localhost:3000/hooks', 'test', resolve)).toBeNull();
    expect(await checkDestination('http://10.0.0.7/hooks', 'test', resolve)).toBeNull();
    expect(await checkDestination('http://[::1]:3000/hooks', 'test', resolve)).toBeNull();
    expect(resolve.asked).toEqual([]);
    expect(await checkDestination('http://receiver.internal/hooks', 'test', scriptedResolver(['192.168.1.20']))).toBeNull();
  });

  it('refuses link-local and cloud-metadata addresses in sandbox too, as literals or behind a name', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/hooks', 'http://100.100.100.200/', 'http://[fd00:ec2::254]/', 'http://0.0.0.0/']) {
      expect(await checkDestination(url, 'test', publicHost()), url).not.toBeNull();
    }
    expect(await checkDestination('http://metadata.example.com/', 'test', scriptedResolver(['169.254.169.254']))).toBe(
      '169.254.169.254 is a link-local address',
    );
  });
});
