import { BlockList, isIP } from 'node:net';
import {
  METADATA_ADDRESSES,
  METADATA_HOST_NAMES,
  SPECIAL_PURPOSE_IPV4,
  SPECIAL_PURPOSE_IPV6,
  type RangeRow,
} from './special-purpose-ranges.ts';

/**
 * SPEC NET-1: which addresses a request made on a model's or a script's behalf may reach. Ours on purpose (the
 * guard is exactly where other projects' SSRF bugs live). `net.BlockList` matches ranges; IPv4 embedded in IPv6 is
 * unwrapped here first, so `::ffff:127.0.0.1` and `64:ff9b::7f00:1` are judged as 127.0.0.1.
 */

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

export type AllowlistMatcher = (address: string, host: string) => boolean;

function compileRows(rows: readonly RangeRow[], family: 'ipv4' | 'ipv6') {
  return rows.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, reason };
  });
}

const IPV4_ROWS = compileRows(SPECIAL_PURPOSE_IPV4, 'ipv4');
const IPV6_ROWS = compileRows(SPECIAL_PURPOSE_IPV6, 'ipv6');
// One list for the common question "is it special at all?"; the per-row lists only name the reason.
const ANY_SPECIAL = new BlockList();
for (const [network, prefix] of SPECIAL_PURPOSE_IPV4) ANY_SPECIAL.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of SPECIAL_PURPOSE_IPV6) ANY_SPECIAL.addSubnet(network, prefix, 'ipv6');
const METADATA = new Set(METADATA_ADDRESSES.map((address) => expandIpv6OrSelf(address)));
const METADATA_NAMES = new Set(METADATA_HOST_NAMES);

export function stripBrackets(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped, a trailing dotted quad folded in). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups].map((group) =>
    Number.parseInt(group, 16),
  );
}

function expandIpv6OrSelf(address: string): string {
  return isIP(address) === 6 ? ipv6Groups(address).join(':') : address;
}

function ipv4FromGroups(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

interface EmbeddedIpv4 {
  ipv4: string;
  /** Judged as the IPv4 address alone (mapped, NAT64 well-known prefix) or blocked whatever it embeds. */
  transparent: boolean;
  form: string;
}

/** The IPv4 address an IPv6 address carries, for the forms NET-1 unwraps. */
export function embeddedIpv4(address: string): EmbeddedIpv4 | undefined {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && g[5] === 0xffff)
    return { ipv4: ipv4FromGroups(g[6]!, g[7]!), transparent: true, form: 'IPv4-mapped' };
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6))
    return { ipv4: ipv4FromGroups(g[6]!, g[7]!), transparent: true, form: 'NAT64' };
  // RFC 6052 /48 layout: bits 48–63 and 72–87 (bits 64–71 are the reserved "u" octet).
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1)
    return {
      ipv4: ipv4FromGroups(g[3]!, ((g[4]! & 0xff) << 8) | (g[5]! >> 8)),
      transparent: false,
      form: 'local-use NAT64',
    };
  if (g[0] === 0x2002) return { ipv4: ipv4FromGroups(g[1]!, g[2]!), transparent: false, form: '6to4' };
  if (zeros(0, 6) && !(g[6] === 0 && g[7]! <= 1))
    return { ipv4: ipv4FromGroups(g[6]!, g[7]!), transparent: false, form: 'IPv4-compatible (deprecated)' };
  return undefined;
}

/** Compiles an allowlist once; throws a clear error for a malformed CIDR (operator configuration). */
export function compileAllowlist(allowlist: OutboundAllowlist = {}): AllowlistMatcher {
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

const METADATA_REASON = 'cloud metadata endpoint (never allowed)';

/** Decides one resolved (or literal) address. `host` is the name the request used, for the host allowlist. */
export function checkOutboundAddress(
  rawAddress: string,
  host: string,
  isAllowlisted: AllowlistMatcher = () => false,
): AddressVerdict {
  const address = stripBrackets(rawAddress);
  const family = isIP(address);
  if (family === 0) return { allowed: false, reason: 'not an IP address' };
  if (METADATA.has(expandIpv6OrSelf(address))) return { allowed: false, reason: METADATA_REASON };
  if (family === 6) {
    const embedded = embeddedIpv4(address);
    if (embedded !== undefined) {
      if (METADATA.has(embedded.ipv4))
        return { allowed: false, reason: `${embedded.form} ${METADATA_REASON}` };
      if (embedded.transparent) {
        const inner = checkOutboundAddress(embedded.ipv4, host, isAllowlisted);
        return inner.allowed
          ? inner
          : { allowed: false, reason: `${embedded.form} ${inner.reason ?? ''}`.trim() };
      }
      if (isAllowlisted(address, host)) return { allowed: true };
      return { allowed: false, reason: `${embedded.form} (embeds ${embedded.ipv4})` };
    }
  }
  const familyName = family === 6 ? 'ipv6' : 'ipv4';
  if (!ANY_SPECIAL.check(address, familyName)) return { allowed: true };
  if (isAllowlisted(address, host)) return { allowed: true };
  const rows = family === 6 ? IPV6_ROWS : IPV4_ROWS;
  const row = rows.find(({ list }) => list.check(address, familyName));
  return row === undefined ? { allowed: true } : { allowed: false, reason: row.reason };
}

/**
 * The rules a host name is judged by without resolving it: metadata names always, `localhost` and `*.localhost`
 * (RFC 6761: always loopback) unless the host allowlist names them.
 */
export function checkHostName(host: string, isAllowlisted: AllowlistMatcher = () => false): AddressVerdict {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (METADATA_NAMES.has(name)) return { allowed: false, reason: METADATA_REASON };
  if ((name === 'localhost' || name.endsWith('.localhost')) && !isAllowlisted('', name)) {
    return { allowed: false, reason: 'loopback (localhost)' };
  }
  return { allowed: true };
}
