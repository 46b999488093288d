import robotsParserModule from 'robots-parser';
import { ToolportError } from '../core/errors.ts';
import type { OutboundHttpClient } from '../core/tool-types.ts';

/** The product token toolport announces and matches robots.txt groups with (then `*`). */
export const ROBOTS_USER_AGENT = 'toolport';

/** RFC 9309 §2.5: crawlers should not use a cached robots.txt for more than 24 hours; we keep it one hour. */
const CACHE_TTL_MS = 60 * 60 * 1000;
/** RFC 9309 §2.5: a parser must read at least 500 KiB. */
const MAX_ROBOTS_BYTES = 500 * 1024;
const MAX_CACHED_ORIGINS = 1000;

interface ParsedRobots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getMatchingLineNumber(url: string, userAgent?: string): number;
}

// A CommonJS module whose export is the function itself; its typings describe it as an ES default export.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => ParsedRobots;

type RobotsRules =
  | { kind: 'parsed'; robots: ParsedRobots }
  | { kind: 'allow_all'; status: number }
  | { kind: 'disallow_all'; reason: string };

interface CacheEntry {
  rules: RobotsRules;
  expiresAt: number;
}

/**
 * WEB-1: robots.txt is always honoured (never bypassed, by design). Fetched once per origin through NET-1 and cached;
 * RFC 9309 §2.3.1: a 4xx answer means no rules (allowed), a 5xx answer or an unreachable server means complete
 * disallow. Groups are matched for the product token `toolport`, then `*` (robots-parser does the group selection).
 */
export class RobotsPolicy {
  readonly #cache = new Map<string, CacheEntry>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Throws `permission_denied` naming robots.txt when `url` may not be fetched. */
  async assertAllowed(url: string, http: OutboundHttpClient, signal: AbortSignal): Promise<void> {
    const target = new URL(url);
    const rules = await this.#rulesFor(target.origin, http, signal);
    if (rules.kind === 'allow_all') return;
    if (rules.kind === 'disallow_all') {
      throw new ToolportError(
        'permission_denied',
        `${target.origin}/robots.txt could not be read (${rules.reason}), which RFC 9309 treats as "disallow ` +
          `everything": ${url} was not fetched. Try again later.`,
        { details: { url, robots: `${target.origin}/robots.txt`, reason: rules.reason } },
      );
    }
    if (rules.robots.isAllowed(target.href, ROBOTS_USER_AGENT) === false) {
      const line = rules.robots.getMatchingLineNumber(target.href, ROBOTS_USER_AGENT);
      throw new ToolportError(
        'permission_denied',
        `${target.origin}/robots.txt disallows ${target.pathname}${target.search} for user agent ` +
          `"${ROBOTS_USER_AGENT}"${line > 0 ? ` (line ${line})` : ''}: the page was not fetched.`,
        { details: { url, robots: `${target.origin}/robots.txt`, line } },
      );
    }
  }

  async #rulesFor(origin: string, http: OutboundHttpClient, signal: AbortSignal): Promise<RobotsRules> {
    const cached = this.#cache.get(origin);
    if (cached !== undefined && cached.expiresAt > this.#now()) return cached.rules;
    const rules = await fetchRules(origin, http, signal);
    // A cancelled call says nothing about the server: do not cache what the abort produced.
    if (signal.aborted) throw signal.reason;
    if (this.#cache.size >= MAX_CACHED_ORIGINS) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(origin, { rules, expiresAt: this.#now() + CACHE_TTL_MS });
    return rules;
  }
}

async function fetchRules(
  origin: string,
  http: OutboundHttpClient,
  signal: AbortSignal,
): Promise<RobotsRules> {
  const robotsUrl = `${origin}/robots.txt`;
  let response;
  try {
    response = await http.request(
      {
        url: robotsUrl,
        headers: { 'user-agent': ROBOTS_USER_AGENT, accept: 'text/plain, */*;q=0.1' },
        maxResponseBytes: MAX_ROBOTS_BYTES,
      },
      signal,
    );
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    // A blocked address is the NET-1 verdict on the page itself: report it as such, not as a robots problem.
    if (error instanceof ToolportError && error.code === 'permission_denied') throw error;
    return { kind: 'disallow_all', reason: `unreachable: ${(error as Error).message}` };
  }
  if (response.status >= 500) return { kind: 'disallow_all', reason: `HTTP ${response.status}` };
  if (response.status >= 400) return { kind: 'allow_all', status: response.status };
  if (response.status < 200 || response.status >= 300) {
    // Redirects were followed by the client (up to 5, RFC 9309 §2.3.1.2); anything else left is unreadable.
    return { kind: 'disallow_all', reason: `HTTP ${response.status}` };
  }
  const text = new TextDecoder('utf-8').decode(response.body);
  return { kind: 'parsed', robots: robotsParser(robotsUrl, text) };
}
