import { redactSecretsDeep, secretForms } from '../core/redact-secrets.ts';
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

/**
 * `redactSecretsDeep` when some form occurs, else the value itself: one serialization and a substring scan instead
 * of a replace per form per string (the common case is a result that contains no credential). The JSON text holds
 * every string and key, JSON-escaped — and the JSON-escaped spelling is one of the forms.
 */
export function redactDeepIfPresent(value: unknown, forms: readonly string[]): unknown {
  if (forms.length === 0) return value;
  const text = JSON.stringify(value) ?? '';
  return forms.some((form) => text.includes(form)) ? redactSecretsDeep(value, forms) : value;
}
