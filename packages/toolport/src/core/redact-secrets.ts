/**
 * SEC-1: secret values never reach a model, a client or a log through a tool's result. Applied by executeTool to the
 * serialized output, the structured result and every partial result, so each surface (agent loop, SSE, MCP
 * `structuredContent`, the HTTP execute route) gets redacted data from one place.
 */

/** Values shorter than this would redact ordinary words; they are refused as secrets upstream. */
export const MIN_REDACTED_SECRET_LENGTH = 4;

export function redactSecretsInText(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_REDACTED_SECRET_LENGTH) redacted = redacted.replaceAll(secret, '***');
  }
  return redacted;
}

/** Deep copy of `value` with every string redacted (keys included); non-plain values pass through as they are. */
export function redactSecretsDeep(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redactSecretsInText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactSecretsDeep(item, secrets));
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        redactSecretsInText(key, secrets),
        redactSecretsDeep(item, secrets),
      ]),
    );
  }
  return value;
}

/** Encoded forms shorter than this are not redacted (a short Base64 fragment would match ordinary text). */
const MIN_ENCODED_VARIANT_LENGTH = 6;

function base64Fragments(secret: Buffer): string[] {
  // A secret inside a longer Base64 text is encoded differently for each of the three byte alignments it can start
  // at; the characters that depend only on the secret's own bytes are the same wherever it sits.
  const fragments: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), secret])
      .toString('base64')
      .replace(/=+$/, '');
    const start = offset === 0 ? 0 : Math.ceil((offset * 4) / 3);
    const total = offset + secret.length;
    const end = total % 3 === 0 ? encoded.length : Math.floor(total / 3) * 4;
    const fragment = encoded.slice(start, end);
    fragments.push(fragment, fragment.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return fragments;
}

/**
 * SEC-1: the secret values plus the forms a tool may echo them in — Base64 (standard and URL-safe, at any
 * alignment), URL-encoded and JSON-escaped — longest first, so a value is redacted before a part of it.
 */
export function withEncodedSecretVariants(secrets: readonly string[]): string[] {
  const variants = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_REDACTED_SECRET_LENGTH) continue;
    variants.add(secret);
    const encodings = [
      ...base64Fragments(Buffer.from(secret, 'utf8')),
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
    ];
    for (const encoded of encodings) if (encoded.length >= MIN_ENCODED_VARIANT_LENGTH) variants.add(encoded);
  }
  return [...variants].sort((a, b) => b.length - a.length);
}
