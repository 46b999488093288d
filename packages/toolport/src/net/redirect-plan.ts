import { ToolportError } from '../core/errors.ts';

export interface RedirectInput {
  status: number;
  location: string;
  url: string;
  method: string;
  hasBody: boolean;
  /** Hops already followed. */
  hop: number;
  maxRedirects: number;
}

export interface RedirectPlan {
  url: string;
  method: string;
  dropBody: boolean;
  /** The caller's headers (credentials, API keys, cookies resolved from templates) must not follow. */
  crossOrigin: boolean;
}

/**
 * SPEC NET-1 redirect rules, shared by the fetch and the request paths: at most `maxRedirects` hops (each re-checked
 * by the caller), 303 — and 301/302 after a POST, as browsers do — become a GET without a body, nothing the caller
 * set follows to another origin, and a body is never resent to another origin (307/308 would resend it).
 */
export function planRedirect(input: RedirectInput): RedirectPlan {
  if (input.hop >= input.maxRedirects) {
    throw new ToolportError('execution_failed', `Too many redirects (more than ${input.maxRedirects}).`);
  }
  let next: URL;
  try {
    next = new URL(input.location, input.url);
  } catch {
    throw new ToolportError('execution_failed', 'A redirect pointed to an invalid URL.');
  }
  const crossOrigin = next.origin !== new URL(input.url).origin;
  const method = input.method.toUpperCase();
  const becomesGet =
    input.status === 303 || ((input.status === 301 || input.status === 302) && method === 'POST');
  const dropBody = becomesGet;
  if (crossOrigin && input.hasBody && !dropBody) {
    throw new ToolportError(
      'permission_denied',
      `Refused to resend the request body to another origin (${next.origin}) on a ${input.status} redirect.`,
    );
  }
  return { url: next.href, method: becomesGet ? 'GET' : method, dropBody, crossOrigin };
}
