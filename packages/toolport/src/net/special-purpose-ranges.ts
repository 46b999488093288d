/**
 * SPEC NET-1: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its updates), plus multicast,
 * every entry blocked for requests made on a model's or a script's behalf. Listed in full, including entries the
 * registry marks globally reachable (AS112, AMT, TURN/PCP anycast): none of them is an API a tool should call, and a
 * short list is easier to audit than a judgement per entry. Each row: network, prefix length, reason.
 */
export type RangeRow = readonly [network: string, prefix: number, reason: string];

export const SPECIAL_PURPOSE_IPV4: readonly RangeRow[] = [
  ['0.0.0.0', 8, 'this network / unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT (shared address space)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.31.196.0', 24, 'AS112 service'],
  ['192.52.193.0', 24, 'AMT relay'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['192.175.48.0', 24, 'direct delegation AS112 service'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  ['255.255.255.255', 32, 'limited broadcast'],
];

/**
 * IPv6. The ranges that embed an IPv4 address (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`) are not listed:
 * `ip-address-policy.ts` unwraps them and judges the IPv4 address inside. The deprecated or local-only embeddings
 * (IPv4-compatible `::/96`, local-use NAT64, 6to4) are blocked whatever they embed.
 */
export const SPECIAL_PURPOSE_IPV6: readonly RangeRow[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0:0', 96, 'IPv4-translated (SIIT)'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['100:0:0:1::', 64, 'dummy prefix'],
  ['2001::', 23, 'IETF protocol assignments (Teredo, benchmarking, ORCHID …)'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['2620:4f:8000::', 48, 'direct delegation AS112 service'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing SIDs'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

/**
 * Cloud metadata endpoints (AWS/GCP/Azure/OpenStack, AWS IPv6, Alibaba, Oracle/DS-Lite, Azure wireserver): denied even
 * when the operator allowlist covers their range, because they hand out the host's cloud credentials.
 */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254',
  'fd00:ec2::254',
  '100.100.100.200',
  '192.0.0.192',
  '168.63.129.16',
];

/** Host names of metadata services, refused by name before any lookup (and whatever the allowlist says). */
export const METADATA_HOST_NAMES: readonly string[] = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
];
