import { describe, expect, it } from 'vitest';
import { checkOutboundAddress, compileAllowlist } from './ip-address-policy.ts';

describe('NET-1 address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'this network / unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved (and broadcast)'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local (private)'],
    ['fd12:3456::1', 'unique local (private)'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped form of a blocked IPv4 address'],
    ['::ffff:7f00:1', 'IPv4-mapped form of a blocked IPv4 address'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped form of a blocked IPv4 address'],
    ['64:ff9b::7f00:1', 'NAT64 (embeds an IPv4 address)'],
    ['2002:7f00:1::', '6to4 (embeds an IPv4 address)'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
  ])('blocks %s (%s)', (address, reason) => {
    expect(checkOutboundAddress(address, 'example.test')).toEqual({ allowed: false, reason });
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(checkOutboundAddress(address, 'example.test').allowed).toBe(true);
    },
  );

  it('refuses something that is not an address', () => {
    expect(checkOutboundAddress('localhost', 'localhost').allowed).toBe(false);
  });

  it('lets the operator allowlist admit CIDRs and host names, and nothing else', () => {
    const allowlisted = compileAllowlist({
      cidrs: ['10.1.0.0/16', '127.0.0.1/32', 'fd00::/8'],
      hosts: ['Wiki.Internal'],
    });
    expect(checkOutboundAddress('10.1.9.9', 'x', allowlisted).allowed).toBe(true);
    expect(checkOutboundAddress('10.2.0.1', 'x', allowlisted).allowed).toBe(false);
    expect(checkOutboundAddress('127.0.0.1', 'x', allowlisted).allowed).toBe(true);
    expect(checkOutboundAddress('127.0.0.2', 'x', allowlisted).allowed).toBe(false);
    expect(checkOutboundAddress('fd00::5', 'x', allowlisted).allowed).toBe(true);
    expect(checkOutboundAddress('192.168.0.7', 'wiki.internal', allowlisted).allowed).toBe(true);
  });

  it.each(['10.0.0.0/33', 'banana/8', '::/129', '10.0.0.0/x'])('rejects the malformed CIDR %s', (cidr) => {
    expect(() => compileAllowlist({ cidrs: [cidr] })).toThrow(/Invalid CIDR/);
  });
});
