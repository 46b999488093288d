import { describe, expect, it } from 'vitest';
import { checkHostName, checkOutboundAddress, compileAllowlist } from './ip-address-policy.ts';

describe('NET-1 address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT (shared address space)'],
    ['0.0.0.0', 'this network / unspecified'],
    ['0.1.2.3', 'this network / unspecified'],
    ['192.0.0.9', 'IETF protocol assignments'],
    ['192.0.2.5', 'documentation (TEST-NET-1)'],
    ['192.31.196.1', 'AS112 service'],
    ['192.52.193.1', 'AMT relay'],
    ['192.88.99.1', 'deprecated 6to4 relay anycast'],
    ['192.175.48.1', 'direct delegation AS112 service'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.1', 'documentation (TEST-NET-2)'],
    ['203.0.113.1', 'documentation (TEST-NET-3)'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['100::1', 'discard-only'],
    ['100:0:0:1::5', 'dummy prefix'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'IETF protocol assignments (Teredo, benchmarking, ORCHID …)'],
    ['2001:2::1', 'IETF protocol assignments (Teredo, benchmarking, ORCHID …)'],
    ['2620:4f:8000::1', 'direct delegation AS112 service'],
    ['5f00::1', 'segment routing SIDs'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local (private)'],
    ['fd12:3456::1', 'unique local (private)'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['::ffff:0:7f00:1', 'IPv4-translated (SIIT)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['64:ff9b::7f00:1', 'NAT64 loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 private'],
    ['64:ff9b:1:7f00:0:100::', 'local-use NAT64 (embeds 127.0.0.1)'],
    ['64:ff9b:1:808:8:800::', 'local-use NAT64 (embeds 8.8.8.8)'],
    ['2002:7f00:1::', '6to4 (embeds 127.0.0.1)'],
    ['2002:808:808::1', '6to4 (embeds 8.8.8.8)'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated) (embeds 127.0.0.1)'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated) (embeds 8.8.8.8)'],
  ])('blocks %s (%s)', (address, reason) => {
    expect(checkOutboundAddress(address, 'example.test')).toEqual({ allowed: false, reason });
  });

  it.each([
    '169.254.169.254',
    'fd00:ec2::254',
    'FD00:EC2:0:0:0:0:0:254',
    '100.100.100.200',
    '192.0.0.192',
    '168.63.129.16',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::',
    '::ffff:168.63.129.16',
  ])('denies the cloud metadata address %s even when the allowlist covers everything', (address) => {
    const everything = compileAllowlist({ cidrs: ['0.0.0.0/0', '::/0'], hosts: ['metadata.example'] });
    const verdict = checkOutboundAddress(address, 'metadata.example', everything);
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toContain('cloud metadata endpoint');
  });

  it('judges host names without resolving: metadata names always, localhost unless allowlisted', () => {
    expect(checkHostName('metadata.google.internal').allowed).toBe(false);
    expect(
      checkHostName('METADATA.GOOGLE.INTERNAL.', compileAllowlist({ hosts: ['metadata.google.internal'] }))
        .allowed,
    ).toBe(false);
    expect(checkHostName('localhost').allowed).toBe(false);
    expect(checkHostName('api.localhost').allowed).toBe(false);
    expect(checkHostName('localhost', compileAllowlist({ hosts: ['localhost'] })).allowed).toBe(true);
    expect(checkHostName('api.example.com').allowed).toBe(true);
  });

  it('unwraps embedded IPv4 for the allowlist too: an allowlisted 127.0.0.2 is allowed in its mapped form', () => {
    const allowlisted = compileAllowlist({ cidrs: ['127.0.0.2/32'] });
    expect(checkOutboundAddress('::ffff:127.0.0.2', 'x', allowlisted).allowed).toBe(true);
    expect(checkOutboundAddress('::ffff:127.0.0.1', 'x', allowlisted).allowed).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '168.63.129.15',
    '192.0.1.1',
  ])('allows the public address %s', (address) => {
    expect(checkOutboundAddress(address, 'example.test').allowed).toBe(true);
  });

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
