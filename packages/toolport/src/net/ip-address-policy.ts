import { BlockList, isIP } from 'node:net';

/**
 * SPEC NET-1: which addresses a request made on a model's or a script's behalf may reach. Ours on purpose (the
 * guard is exactly where other projects' SSRF bugs live): every blocked range is listed here with its reason.
 * `net.BlockList` does the matching, including IPv4-mapped IPv6 forms (::ffff:127.0.0.1, ::ffff:7f00:1).
 */
const BLOCKED_IPV4: ReadonlyArray<[string, number, string]> = [
  ['0.0.0.0', 8, 'this network / unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (and broadcast)'],
];

const BLOCKED_IPV6: ReadonlyArray<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['64:ff9b::', 96, 'NAT64 (embeds an IPv4 address)'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignments (Teredo, ORCHID …)'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4 (embeds an IPv4 address)'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

const blockedRanges = new BlockList();
for (const [network, prefix] of BLOCKED_IPV4) blockedRanges.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of BLOCKED_IPV6) blockedRanges.addSubnet(network, prefix, 'ipv6');

/** The operator allowlist (NET-1): hosts and CIDRs for self-hosted internal APIs and for tests. */
export interface OutboundAllowlist {
  /** Host names allowed to resolve to blocked addresses, exact, case-insensitive (e.g. "wiki.internal"). */
  hosts?: readonly string[];
  /** Address ranges allowed even though blocked, e.g. "10.1.0.0/16", "127.0.0.1/32", "fd00::/8". */
  cidrs?: readonly string[];
}

export interface AddressVerdict {
  allowed: boolean;
  /** Why it is blocked (for the error message and the log). */
  reason?: string;
}

function stripBrackets(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}

function reasonFor(address: string, family: 'ipv4' | 'ipv6'): string {
  const table = family === 'ipv4' ? BLOCKED_IPV4 : BLOCKED_IPV6;
  for (const [network, prefix, reason] of table) {
    const single = new BlockList();
    single.addSubnet(network, prefix, family);
    if (single.check(address, family)) return reason;
  }
  // An IPv4-mapped IPv6 address matched an IPv4 range.
  return 'IPv4-mapped form of a blocked IPv4 address';
}

/** Compiles an allowlist once; throws a clear error for a malformed CIDR (operator configuration). */
export function compileAllowlist(
  allowlist: OutboundAllowlist = {},
): (address: string, host: string) => boolean {
  const hosts = new Set((allowlist.hosts ?? []).map((host) => host.toLowerCase()));
  const ranges = new BlockList();
  for (const cidr of allowlist.cidrs ?? []) {
    const [network = '', prefixText] = cidr.split('/');
    const family = isIP(network);
    const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText);
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) {
      throw new Error(
        `Invalid CIDR ${JSON.stringify(cidr)} in the outbound allowlist: use forms like 10.0.0.0/8 or fd00::/8.`,
      );
    }
    ranges.addSubnet(network, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return (address, host) => {
    if (hosts.has(host.toLowerCase())) return true;
    const family = isIP(address);
    return family !== 0 && ranges.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** Decides one resolved (or literal) address. `host` is the name the request used, for the host allowlist. */
export function checkOutboundAddress(
  rawAddress: string,
  host: string,
  isAllowlisted: (address: string, host: string) => boolean = () => false,
): AddressVerdict {
  const address = stripBrackets(rawAddress);
  const family = isIP(address);
  if (family === 0) return { allowed: false, reason: 'not an IP address' };
  const familyName = family === 6 ? 'ipv6' : 'ipv4';
  if (!blockedRanges.check(address, familyName)) return { allowed: true };
  if (isAllowlisted(address, host)) return { allowed: true };
  return { allowed: false, reason: reasonFor(address, familyName) };
}
