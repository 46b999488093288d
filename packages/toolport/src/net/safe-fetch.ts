import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { ToolportError } from '../core/errors.ts';
import type { OutboundHttpClient, OutboundHttpRequest, OutboundHttpResponse } from '../core/tool-types.ts';
import { checkOutboundAddress, compileAllowlist, type OutboundAllowlist } from './ip-address-policy.ts';

/**
 * SPEC NET-1: the one outbound HTTP client for requests made on a model's or a script's behalf (HTTP tools, g.http,
 * web and video summaries, users' remote MCP servers). The address check runs inside the connection's own DNS
 * lookup, so the address that was checked is the address that is connected to (no DNS-rebinding window); literal IPs
 * are checked before connecting; every redirect hop is re-checked; response size and time are capped.
 */
export interface SafeFetchOptions {
  allowlist?: OutboundAllowlist;
  /** Resolver used at connect time; tests inject one. Defaults to the system resolver. */
  resolve?: (host: string) => Promise<readonly LookupAddress[]>;
  maxRedirects?: number;
  defaultTimeoutMs?: number;
  defaultMaxResponseBytes?: number;
}

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;

function blocked(host: string, address: string, reason: string): ToolportError {
  return new ToolportError(
    'permission_denied',
    `Refused to connect to ${host}${address === host ? '' : ` (${address})`}: ${reason} addresses are blocked for ` +
      'requests made on behalf of a model or script. An operator can allow internal hosts in the outbound allowlist.',
    { details: { host, address, reason } },
  );
}

function systemResolve(host: string): Promise<readonly LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}

export interface SafeFetch {
  /** fetch-compatible: hand it to SDKs that accept a custom fetch (the MCP SDK's HTTP transports). */
  fetch: typeof globalThis.fetch;
  /** The core OutboundHttpClient interface (buffered body, capped). */
  client: OutboundHttpClient;
  /** Throws permission_denied when `url` (its literal address) is blocked; hostnames are checked at connect time. */
  assertUrlAllowed(url: string): void;
  close(): Promise<void>;
}

export function createSafeFetch(options: SafeFetchOptions = {}): SafeFetch {
  const isAllowlisted = compileAllowlist(options.allowlist);
  const resolveHost = options.resolve ?? systemResolve;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;

  // Called by the socket for every connection: resolve, check every address, connect only to a checked one.
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const wanted =
          lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
        const candidates = addresses.filter((entry) => wanted === undefined || entry.family === wanted);
        for (const entry of candidates) {
          const verdict = checkOutboundAddress(entry.address, hostname, isAllowlisted);
          // One blocked address fails the whole host: a name that resolves to a public and a private address is a
          // classic rebinding setup.
          if (!verdict.allowed)
            return callback(blocked(hostname, entry.address, verdict.reason ?? 'blocked'), '', 4);
        }
        const first = candidates[0];
        if (first === undefined)
          return callback(new Error(`${hostname} did not resolve to any address`), '', 4);
        if (lookupOptions.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, candidates);
        return callback(null, first.address, first.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };

  const dispatcher: Dispatcher = new Agent({ connect: { lookup: guardedLookup } });

  const assertUrlAllowed = (url: string): void => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ToolportError(
        'validation_failed',
        `Invalid URL ${JSON.stringify(url)}: use an absolute http(s) URL.`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ToolportError(
        'validation_failed',
        `Only http and https URLs are allowed, received ${parsed.protocol}//…`,
      );
    }
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) {
      const verdict = checkOutboundAddress(host, host, isAllowlisted);
      if (!verdict.allowed) throw blocked(host, host, verdict.reason ?? 'blocked');
    }
  };

  const guardedFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    let requestInit: RequestInit = init;
    for (let hop = 0; ; hop += 1) {
      assertUrlAllowed(url);
      const response = (await undiciFetch(url, {
        ...(requestInit as Record<string, unknown>),
        redirect: 'manual',
        dispatcher,
      } as Parameters<typeof undiciFetch>[1])) as unknown as Response;
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null || init.redirect === 'manual')
        return response;
      if (init.redirect === 'error')
        throw new ToolportError('execution_failed', `Redirect from ${url} refused.`);
      await response.body?.cancel();
      if (hop >= maxRedirects) {
        throw new ToolportError(
          'execution_failed',
          `Too many redirects (more than ${maxRedirects}) starting at ${url}.`,
        );
      }
      const next = new URL(location, url);
      const crossOrigin = next.origin !== new URL(url).origin;
      url = next.href;
      // 303 (and 301/302 after POST, as browsers do) turn into GET without a body.
      const method = (requestInit.method ?? 'GET').toUpperCase();
      const becomesGet =
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === 'POST');
      if (becomesGet) requestInit = { ...requestInit, method: 'GET', body: undefined };
      if (crossOrigin) {
        // With redirect: 'manual' undici's own rule (drop credentials on an origin change) does not run. Every header
        // the caller set may carry a secret (Authorization, X-API-Key, cookies resolved from {{SECRET}} templates), so
        // none follows the request to another origin, and neither does a body (307/308 would resend it).
        if (requestInit.body !== undefined && requestInit.body !== null) {
          throw new ToolportError(
            'permission_denied',
            `Refused to resend the request body to another origin (${next.origin}) on a ${response.status} redirect.`,
          );
        }
        requestInit = { ...requestInit, headers: undefined };
      }
    }
  };

  const client: OutboundHttpClient = {
    async request(request: OutboundHttpRequest, signal?: AbortSignal): Promise<OutboundHttpResponse> {
      const timeoutMs = request.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS;
      const maxBytes =
        request.maxResponseBytes ?? options.defaultMaxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      const timeoutSignal = AbortSignal.timeout(timeoutMs);
      const combined = signal === undefined ? timeoutSignal : AbortSignal.any([signal, timeoutSignal]);
      try {
        const response = await guardedFetch(request.url, {
          method: request.method ?? 'GET',
          headers: request.headers,
          body: request.body as RequestInit['body'],
          signal: combined,
          ...(request.followRedirects === false ? { redirect: 'manual' as const } : {}),
        });
        const chunks: Uint8Array[] = [];
        let received = 0;
        let truncated = false;
        const reader = response.body?.getReader();
        while (reader !== undefined) {
          const { done, value } = await reader.read();
          if (done) break;
          const room = maxBytes - received;
          if (value.byteLength > room) {
            // Stop at the cap even if the server keeps sending: never buffer past it.
            chunks.push(value.subarray(0, room));
            received += room;
            truncated = true;
            await reader.cancel();
            break;
          }
          chunks.push(value);
          received += value.byteLength;
        }
        const body = new Uint8Array(received);
        let offset = 0;
        for (const chunk of chunks) {
          body.set(chunk, offset);
          offset += chunk.byteLength;
        }
        const headers: Record<string, string> = {};
        response.headers.forEach((value, key) => {
          headers[key] = value;
        });
        return { status: response.status, url: response.url || request.url, headers, body, truncated };
      } catch (error) {
        if (timeoutSignal.aborted && !(signal?.aborted ?? false)) {
          throw new ToolportError(
            'timeout',
            `The request to ${request.url} took longer than ${timeoutMs} ms.`,
          );
        }
        throw unwrapBlocked(error);
      }
    },
  };

  return {
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      try {
        return await guardedFetch(input, init);
      } catch (error) {
        throw unwrapBlocked(error);
      }
    }) as typeof globalThis.fetch,
    client,
    assertUrlAllowed,
    close: () => dispatcher.close(),
  };
}

/** undici wraps connect errors in "fetch failed"; surface our permission_denied instead. */
function unwrapBlocked(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current instanceof ToolportError) return current;
    current = current.cause;
  }
  return error;
}
