import { redactSecretsDeepIfPresent, secretForms } from '../core/redact-secrets.ts';
/**
 * Every form of every value (the core's `secretForms`: raw, Base64/base64url at each alignment, percent-encoded,
 * JSON-escaped), plus — for `user:password` pairs (Basic auth) — the password alone, since the user part
 * is often public and the password must not survive on its own.
 */
export function expandSecretValues(values: Iterable<string>): string[] {
  const list = [...values];
  const key = list.join('\u0000');
  const cached = expansions.get(key);
  if (cached !== undefined) return cached;
  const expanded = expand(list);
  // The same few credentials come back on every call of a tool: remember a bounded number of expansions.
  if (expansions.size >= MAX_CACHED_EXPANSIONS) expansions.delete(expansions.keys().next().value!);
  expansions.set(key, expanded);
  return expanded;
}

const MAX_CACHED_EXPANSIONS = 256;
const expansions = new Map<string, string[]>();

function expand(values: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    for (const form of secretForms(value)) forms.add(form);
    const colon = value.indexOf(':');
    if (colon > 0 && value.length - colon - 1 >= 4) {
      for (const form of secretForms(value.slice(colon + 1))) forms.add(form);
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `value` with every form of `forms` redacted, and `value` itself when none occurs (core's scan-first pass). */
export function redactDeepIfPresent(value: unknown, forms: readonly string[]): unknown {
  return redactSecretsDeepIfPresent(value, forms);
}
