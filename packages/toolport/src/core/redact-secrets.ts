/**
 * SEC-1: secret values never reach a model, a client or a log through a tool's result. Applied by executeTool to the
 * serialized output, the structured result, every partial result, error messages and details, progress messages
 * and the tool's log lines, so each surface (agent loop, SSE, MCP `structuredContent`, the HTTP execute route)
 * gets redacted data from one place.
 *
 * A secret is matched in the forms a tool or a remote server plausibly echoes it back in: raw; JSON-escaped (once
 * and twice); percent-encoded (upper- and lower-case hex, `+` for spaces, every byte encoded); and Base64 and
 * base64url at each of the three alignments, so it is found inside a longer stream — `Basic base64(user:secret)`,
 * a JWT segment, a data URL. In a Base64 stream only the characters that depend on the secret's bytes alone are
 * stable; those are what is matched and replaced.
 */

/** Values shorter than this would redact ordinary words; they are refused as secrets upstream. */
export const MIN_REDACTED_SECRET_LENGTH = 4;
/** A Base64 form shorter than this would match by chance inside unrelated Base64 (an image, a hash). */
const MIN_BASE64_FORM_LENGTH = 6;
export const REDACTED = '***';

/** The stable Base64 characters of `bytes` placed `offset` bytes (0, 1, 2) into a 3-byte group of a longer stream. */
function stableBase64(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]).toString('base64');
  const firstBit = offset * 8;
  const endBit = firstBit + bytes.length * 8;
  // Character i holds bits [6i, 6i + 6): keep those lying wholly inside the secret's bits.
  return encoded.slice(Math.ceil(firstBit / 6), Math.floor(endBit / 6));
}

function percentEncodeEveryByte(bytes: Buffer): string {
  let encoded = '';
  for (const byte of bytes) encoded += `%${byte.toString(16).padStart(2, '0').toUpperCase()}`;
  return encoded;
}

/** Every form of one secret worth looking for (see the file comment), deduplicated. */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_REDACTED_SECRET_LENGTH) return [];
  const forms = new Set<string>([secret]);
  const jsonEscaped = JSON.stringify(secret).slice(1, -1);
  forms.add(jsonEscaped);
  forms.add(JSON.stringify(jsonEscaped).slice(1, -1));
  // Non-ASCII as \uXXXX, as JSON encoders in ASCII-safe mode write it.
  forms.add(
    jsonEscaped.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
  const percent = encodeURIComponent(secret);
  forms.add(percent);
  forms.add(percent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  forms.add(percent.replace(/%20/g, '+'));
  const bytes = Buffer.from(secret, 'utf8');
  const everyByte = percentEncodeEveryByte(bytes);
  forms.add(everyByte);
  forms.add(everyByte.toLowerCase());
  for (let offset = 0; offset < 3; offset += 1) {
    const base64 = stableBase64(bytes, offset);
    if (base64.length < MIN_BASE64_FORM_LENGTH) continue;
    forms.add(base64);
    forms.add(base64.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

/** The precomputed forms of one secret set, longest first (a longer form may contain a shorter one). */
export interface SecretRedactor {
  readonly forms: readonly string[];
  redact(text: string): string;
}

const EMPTY_REDACTOR: SecretRedactor = { forms: [], redact: (text) => text };
/** Recent secret sets by content: a user's set is reused call after call, so its forms are computed once. */
const redactorCache = new Map<string, SecretRedactor>();
const REDACTOR_CACHE_SIZE = 128;

function createRedactor(secrets: readonly string[]): SecretRedactor {
  const forms = [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return EMPTY_REDACTOR;
  return {
    forms,
    redact(text) {
      // Most text contains no secret: scan first (indexOf is fast), allocate only for a hit.
      let redacted = text;
      for (const form of forms) {
        if (redacted.length >= form.length && redacted.includes(form))
          redacted = redacted.replaceAll(form, REDACTED);
      }
      return redacted;
    },
  };
}

/** The redactor for `secrets`, from the cache when this exact set was seen recently. */
export function getSecretRedactor(secrets: readonly string[]): SecretRedactor {
  if (secrets.length === 0) return EMPTY_REDACTOR;
  // A call passes the same array to every surface (result, output, logs): skip the join for an array seen before.
  // Its length and ends are checked too, so an array edited after it was seen is not matched to stale forms.
  const known = redactorsByArray.get(secrets);
  if (
    known !== undefined &&
    known.length === secrets.length &&
    known.first === secrets[0] &&
    known.last === secrets[secrets.length - 1]
  ) {
    return known.redactor;
  }
  const redactor = redactorFor(secrets);
  redactorsByArray.set(secrets, {
    length: secrets.length,
    first: secrets[0]!,
    last: secrets[secrets.length - 1]!,
    redactor,
  });
  return redactor;
}

const redactorsByArray = new WeakMap<
  readonly string[],
  { length: number; first: string; last: string; redactor: SecretRedactor }
>();

function redactorFor(secrets: readonly string[]): SecretRedactor {
  const key = secrets.join('\u0000');
  const cached = redactorCache.get(key);
  if (cached !== undefined) {
    // Map order is insertion order: re-inserting keeps the most recent at the end.
    redactorCache.delete(key);
    redactorCache.set(key, cached);
    return cached;
  }
  const redactor = createRedactor(secrets);
  redactorCache.set(key, redactor);
  if (redactorCache.size > REDACTOR_CACHE_SIZE) redactorCache.delete(redactorCache.keys().next().value!);
  return redactor;
}

export function redactSecretsInText(text: string, secrets: readonly string[]): string {
  return getSecretRedactor(secrets).redact(text);
}

function redactDeep(value: unknown, redactor: SecretRedactor): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redactor));
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        redactor.redact(key),
        redactDeep(item, redactor),
      ]),
    );
  }
  return value;
}

/** Deep copy of `value` with every string redacted (keys included); non-plain values pass through as they are. */
export function redactSecretsDeep(value: unknown, secrets: readonly string[]): unknown {
  const redactor = getSecretRedactor(secrets);
  if (redactor.forms.length === 0) return value;
  return redactDeep(value, redactor);
}

/** True when some form of the redactor's secrets occurs in `text`. */
export function containsSecretForm(text: string, redactor: SecretRedactor): boolean {
  for (const form of redactor.forms) if (text.length >= form.length && text.includes(form)) return true;
  return false;
}

/**
 * `redactSecretsDeep` when some form occurs in `value`'s JSON text, else `value` itself: one serialization and a
 * substring scan instead of a deep copy (the common case is a value that holds no secret). The JSON text holds every
 * string and key, JSON-escaped, and the JSON-escaped spelling is one of the forms; a value JSON cannot serialize
 * (a cycle, a BigInt) gets the deep copy.
 */
export function redactSecretsDeepIfPresent(value: unknown, secrets: readonly string[]): unknown {
  const redactor = getSecretRedactor(secrets);
  if (redactor.forms.length === 0) return value;
  let text: string | undefined;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    return redactDeep(value, redactor);
  }
  return text === undefined || !containsSecretForm(text, redactor) ? value : redactDeep(value, redactor);
}
