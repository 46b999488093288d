import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import {
  checkHostName,
  checkOutboundAddress,
  stripBrackets,
  type AddressVerdict,
  type AllowlistMatcher,
} from './ip-address-policy.ts';

/**
 * SPEC NET-1, the URL rules that come before any address: http(s) only, no userinfo, a port from 1 to 65535, a host
 * name that is not a metadata or localhost name, a literal IP that passes the address policy. Messages never repeat
 * the URL's userinfo (undici's would: that is why this check runs first).
 */
export type UrlShapeVerdict =
  | { allowed: true; url: URL; host: string }
  | { allowed: false; reason: string; kind: 'invalid' | 'blocked'; url?: URL };

export type AddressCheck = (address: string, host: string, isAllowlisted: AllowlistMatcher) => AddressVerdict;

export function checkOutboundUrl(
  text: string,
  isAllowlisted: AllowlistMatcher,
  checkAddress: AddressCheck = checkOutboundAddress,
): UrlShapeVerdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { allowed: false, kind: 'invalid', reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      allowed: false,
      kind: 'invalid',
      reason: `scheme ${url.protocol.replace(/:$/, '')} is not allowed (http and https only)`,
      url,
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      allowed: false,
      kind: 'invalid',
      reason: 'credentials in the URL (user:password@) are not allowed',
      url,
    };
  }
  if (url.port === '0')
    return { allowed: false, kind: 'invalid', reason: 'port 0 is not allowed (ports 1-65535)', url };
  const host = stripBrackets(url.hostname);
  if (host === '') return { allowed: false, kind: 'invalid', reason: 'no host', url };
  if (isIP(host) !== 0) {
    const verdict = checkAddress(host, host, isAllowlisted);
    if (!verdict.allowed)
      return { allowed: false, kind: 'blocked', reason: verdict.reason ?? 'blocked address', url };
    return { allowed: true, url, host };
  }
  const named = checkHostName(host, isAllowlisted);
  if (!named.allowed)
    return { allowed: false, kind: 'blocked', reason: named.reason ?? 'blocked host name', url };
  return { allowed: true, url, host };
}

/** The URL without userinfo, query or fragment: what error messages and logs may show. */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

export type HostResolver = (host: string) => Promise<readonly LookupAddress[]>;

export function systemResolve(host: string): Promise<readonly LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}

export interface UrlJudgement {
  url: string;
  verdict: 'allow' | 'block';
  reason: string;
  addresses: string[];
}

/**
 * `toolport net check`: the verdict the safe fetch would reach for `text`, without sending anything. With `resolve`
 * undefined a host name is judged by the name rules alone (`--no-resolve`).
 */
export async function judgeOutboundUrl(
  text: string,
  isAllowlisted: AllowlistMatcher,
  resolve: HostResolver | undefined,
): Promise<UrlJudgement> {
  const shape = checkOutboundUrl(text, isAllowlisted);
  if (!shape.allowed) {
    const literal = shape.url === undefined ? '' : stripBrackets(shape.url.hostname);
    const addresses = isIP(literal) === 0 ? [] : [literal];
    return { url: text, verdict: 'block', reason: shape.reason, addresses };
  }
  const { host } = shape;
  if (isIP(host) !== 0) {
    return { url: text, verdict: 'allow', reason: 'address allowed', addresses: [host] };
  }
  if (resolve === undefined) {
    return {
      url: text,
      verdict: 'allow',
      reason: 'host name allowed by the name rules (not resolved)',
      addresses: [],
    };
  }
  let resolved: readonly LookupAddress[];
  try {
    resolved = await resolve(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed';
    return { url: text, verdict: 'block', reason: `${host} does not resolve (${code})`, addresses: [] };
  }
  const addresses = resolved.map((entry) => entry.address);
  if (addresses.length === 0) {
    return { url: text, verdict: 'block', reason: `${host} did not resolve to any address`, addresses };
  }
  for (const address of addresses) {
    const verdict = checkOutboundAddress(address, host, isAllowlisted);
    if (!verdict.allowed) {
      return { url: text, verdict: 'block', reason: `${address}: ${verdict.reason ?? 'blocked'}`, addresses };
    }
  }
  return { url: text, verdict: 'allow', reason: 'every resolved address allowed', addresses };
}
