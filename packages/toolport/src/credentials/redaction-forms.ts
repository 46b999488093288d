import { redactSecretsDeep } from '../core/redact-secrets.ts';
/**
 * SEC-1: the spellings of a secret that can reach a model when an upstream echoes it back — raw, Base64 and
 * base64url at each of the three byte alignments (a secret inside a longer encoded text, e.g. a Basic header),
 * percent- and form-encoded, JSON-escaped. Redacting every form is what keeps `echo $TOKEN | base64` out of a result.
 */

/** An aligned Base64 core shorter than this would match ordinary text. */
const MIN_ENCODED_FORM_LENGTH = 6;

function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores: string[] = [];
  for (const alignment of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(alignment), bytes]);
    for (const encoding of ['base64', 'base64url'] as const) {
      const encoded = padded.toString(encoding);
      // Only the characters whose 6 bits all come from the secret are stable whatever surrounds it.
      const start = Math.ceil((8 * alignment) / 6);
      const end = Math.floor((8 * (alignment + bytes.length)) / 6);
      const core = encoded.slice(start, end);
      if (core.length >= MIN_ENCODED_FORM_LENGTH) cores.push(core);
    }
  }
  return cores;
}

export function redactionForms(value: string): string[] {
  const forms = new Set<string>([value]);
  for (const core of base64Cores(value)) forms.add(core);
  forms.add(encodeURIComponent(value));
  forms.add(encodeURIComponent(value).replace(/%20/g, '+'));
  forms.add(JSON.stringify(value).slice(1, -1));
  // Longest first: a shorter form inside a longer one must not break the longer one's match.
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Every form of every value, plus — for `user:password` pairs (Basic auth) — the password alone, since the user part
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
    for (const form of redactionForms(value)) forms.add(form);
    const colon = value.indexOf(':');
    if (colon > 0 && value.length - colon - 1 >= 4) {
      for (const form of redactionForms(value.slice(colon + 1))) forms.add(form);
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
