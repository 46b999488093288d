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
