import type { LookupAddress } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { DeadlineScheduler } from '../core/deadline-scheduler.ts';
import { ToolportError } from '../core/errors.ts';
import type { OutboundHttpClient, OutboundHttpRequest, OutboundHttpResponse } from '../core/tool-types.ts';
import {
  checkOutboundAddress,
  compileAllowlist,
  type AddressVerdict,
  type OutboundAllowlist,
} from './ip-address-policy.ts';
import { checkOutboundUrl, describeUrl, systemResolve, type HostResolver } from './outbound-url.ts';
import { dispatchCapped, type CappedDispatch } from './capped-dispatch.ts';
import { abortReason, createDispatcherFetch } from './dispatcher-fetch.ts';
import { planRedirect } from './redirect-plan.ts';

/**
 * SPEC NET-1: the one outbound HTTP client for requests made on a model's or a script's behalf (HTTP tools, g.http,
 * web and video summaries, users' remote MCP servers, OpenAPI document URLs). The address check runs inside the
 * connection's own DNS lookup, so the address that was checked is the address that is connected to (no
 * DNS-rebinding window); literal IPs are checked before connecting; every redirect hop is re-checked; response size
 * and time are capped. The dispatcher is our own `Agent`, so `HTTP_PROXY`/`HTTPS_PROXY` (and a global
 * `EnvHttpProxyAgent`) never route these requests through a proxy that would connect for us unchecked.
 */
export interface SafeFetchOptions {
  allowlist?: OutboundAllowlist;
  /** Resolver used at connect time; tests inject one. Defaults to the system resolver. */
  resolve?: HostResolver;
  maxRedirects?: number;
  defaultTimeoutMs?: number;
  defaultMaxResponseBytes?: number;
}

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;
const deadlines = new DeadlineScheduler();
const MAX_REMEMBERED_VERDICTS = 4096;

function blocked(host: string, address: string, reason: string): ToolportError {
  return new ToolportError(
    'permission_denied',
    `Refused to connect to ${host}${address === host ? '' : ` (${address})`}: ${reason}. Such addresses are ` +
      'blocked for requests made on behalf of a model or script; an operator can allow internal hosts in the ' +
      'outbound allowlist (TOOLPORT_OUTBOUND_ALLOW).',
    { details: { host, address, reason } },
  );
}

export interface SafeFetch {
  /** fetch-compatible: hand it to SDKs that accept a custom fetch (the MCP SDK's HTTP transports). */
  fetch: typeof globalThis.fetch;
  /** The core OutboundHttpClient interface (buffered body, capped), on undici's `request` (no fetch overhead). */
  client: OutboundHttpClient;
  /** Throws when `url` is refused by the URL rules or its literal address is blocked; names are checked at connect. */
  assertUrlAllowed(url: string): URL;
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
          const verdict = checkAddress(entry.address, hostname);
          // One blocked address fails the whole host: a name that resolves to a public and a private address is a
          // classic rebinding setup.
          if (!verdict.allowed)
            return callback(blocked(hostname, entry.address, verdict.reason ?? 'blocked'), '', 4);
        }
        const first = candidates[0];
        if (first === undefined)
          return callback(new Error(`${hostname} did not resolve to any address`), '', 4);
        if (lookupOptions.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [...candidates]);
        return callback(null, first.address, first.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };

  const dispatcher: Dispatcher = new Agent({ connect: { lookup: guardedLookup } });

  // Verdicts depend only on (address, host) and this client's allowlist: remembered, bounded (a tool calls the same
  // few hosts again and again; BlockList lookups cost more than the rest of a request's bookkeeping).
  const verdicts = new Map<string, AddressVerdict>();
  const checkAddress = (address: string, host: string): AddressVerdict => {
    const key = `${address}\u0000${host}`;
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = checkOutboundAddress(address, host, isAllowlisted);
      if (verdicts.size >= MAX_REMEMBERED_VERDICTS) verdicts.clear();
      verdicts.set(key, verdict);
    }
    return verdict;
  };

  const assertUrlAllowed = (text: string): URL => {
    const verdict = checkOutboundUrl(text, isAllowlisted, checkAddress);
    if (verdict.allowed) return verdict.url;
    if (verdict.kind === 'blocked' && verdict.url !== undefined) {
      const host = verdict.url.hostname.replace(/^\[|\]$/g, '');
      throw blocked(host, host, verdict.reason);
    }
    const where = verdict.url === undefined ? 'The URL' : describeUrl(verdict.url);
    throw new ToolportError('validation_failed', `${where} is refused: ${verdict.reason}.`, {
      details: { reason: verdict.reason },
    });
  };

  // fetch on the same dispatcher (the guarded lookup) and the same URL and redirect rules as `client.request`.
  const guardedFetch = createDispatcherFetch({
    dispatcher,
    checkUrl: assertUrlAllowed,
    maxRedirects,
    toFetchError: toFetchFailure,
  });

  const client: OutboundHttpClient = {
    async request(request: OutboundHttpRequest, signal?: AbortSignal): Promise<OutboundHttpResponse> {
      const timeoutMs = request.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS;
      const maxBytes =
        request.maxResponseBytes ?? options.defaultMaxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      // A shared deadline scheduler and the dispatch's own abort, not AbortSignal.timeout + AbortSignal.any and a
      // signal per request: those cost more than the loopback request itself.
      let timedOut = false;
      let stopped: Error | undefined;
      let inFlight: CappedDispatch | undefined;
      const stop = (reason: Error): void => {
        stopped ??= reason;
        inFlight?.abort(reason);
      };
      const deadline = deadlines.schedule(timeoutMs, () => {
        timedOut = true;
        stop(new Error('timeout'));
      });
      const forwardAbort = (): void => stop(abortReasonOf(signal!));
      if (signal?.aborted === true) forwardAbort();
      else signal?.addEventListener('abort', forwardAbort, { once: true });
      // A caller that judges every hop itself (web_page_summary: robots.txt per origin) gets the 3xx as is.
      const followsRedirect = (status: number, responseHeaders: IncomingHttpHeaders): boolean =>
        status >= 300 &&
        status <= 399 &&
        typeof responseHeaders.location === 'string' &&
        request.followRedirects !== false;
      let url = request.url;
      let method = (request.method ?? 'GET').toUpperCase();
      let headers = request.headers;
      let body = request.body;
      try {
        for (let hop = 0; ; hop += 1) {
          const target = assertUrlAllowed(url);
          if (stopped !== undefined) throw stopped;
          inFlight = dispatchCapped(
            dispatcher,
            {
              origin: target.origin,
              path: `${target.pathname}${target.search}`,
              method: method as Dispatcher.HttpMethod,
              headers,
              body: body === undefined ? null : body,
            },
            maxBytes,
            followsRedirect,
          );
          const response = await inFlight.response;
          const location = response.headers.location;
          if (followsRedirect(response.statusCode, response.headers) && typeof location === 'string') {
            const plan = planRedirect({
              status: response.statusCode,
              location,
              url,
              method,
              hasBody: body !== undefined,
              hop,
              maxRedirects,
            });
            url = plan.url;
            method = plan.method;
            if (plan.dropBody) body = undefined;
            if (plan.crossOrigin) headers = undefined;
            continue;
          }
          return {
            status: response.statusCode,
            url,
            headers: flattenHeaders(response.headers),
            body: response.body,
            truncated: response.truncated,
          };
        }
      } catch (error) {
        if (timedOut && !(signal?.aborted ?? false)) {
          throw new ToolportError(
            'timeout',
            `The request to ${safeDescribe(url)} took longer than ${timeoutMs} ms.`,
          );
        }
        throw toSafeError(error, url);
      } finally {
        deadlines.cancel(deadline);
        signal?.removeEventListener('abort', forwardAbort);
      }
    },
  };

  return {
    fetch: guardedFetch,
    client,
    assertUrlAllowed,
    close: () => dispatcher.close(),
  };
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The caller's abort reason (fetch's, `abortReason`) as the Error a dispatch can be aborted with. */
function abortReasonOf(signal: AbortSignal): Error {
  const reason = abortReason(signal);
  return reason instanceof Error ? reason : new DOMException(String(reason), 'AbortError');
}

function safeDescribe(text: string): string {
  try {
    return describeUrl(new URL(text));
  } catch {
    return 'the URL';
  }
}

/**
 * undici's errors keep the request (headers with credentials) on their properties and causes: they are never passed
 * on. Our own ToolportErrors are; anything else becomes a fresh `execution_failed` with only the error code.
 */
function toSafeError(error: unknown, url: string): unknown {
  const ours = unwrapBlocked(error);
  if (ours instanceof ToolportError) return ours;
  const code = networkErrorCode(error);
  if (error instanceof Error && error.name === 'AbortError') {
    return new ToolportError('aborted', `The request to ${safeDescribe(url)} was cancelled.`);
  }
  return new ToolportError(
    'execution_failed',
    `The request to ${safeDescribe(url)} failed${code === undefined ? '' : ` (${code})`}.`,
    { details: code === undefined ? {} : { networkError: code } },
  );
}

/**
 * What the fetch path throws for a failed exchange: our own refusal (a blocked address found at connect) as it is;
 * anything else as fetch's `TypeError("fetch failed")`, whose cause keeps only the network error's code (the provider
 * errors read it: "is the server at … running?").
 */
function toFetchFailure(error: unknown): unknown {
  const ours = unwrapBlocked(error);
  if (ours instanceof ToolportError) return ours;
  const code = networkErrorCode(error);
  const cause = Object.assign(new Error(code ?? 'network error'), code === undefined ? {} : { code });
  return new TypeError('fetch failed', { cause });
}

function networkErrorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const candidate = (current as NodeJS.ErrnoException).code;
    if (typeof candidate === 'string') return candidate;
    current = current.cause;
  }
  return undefined;
}

/** undici may wrap connect errors; surface our permission_denied instead. */
function unwrapBlocked(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current instanceof ToolportError) return current;
    current = current.cause;
  }
  return error;
}
