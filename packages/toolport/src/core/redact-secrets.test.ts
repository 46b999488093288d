import { describe, expect, it } from 'vitest';
import { getSecretRedactor, redactSecretsDeep, redactSecretsInText } from './redact-secrets.ts';

const SECRET = 'sk-live/4f9a+8b "quoted" é';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('SEC-1 redaction forms', () => {
  const redact = (text: string) => redactSecretsInText(text, [SECRET]);

  it('redacts the raw value', () => {
    expect(redact(`token=${SECRET};`)).toBe('token=***;');
  });

  it('redacts JSON-escaped forms (once, twice, and ASCII-only \\u escapes)', () => {
    const once = JSON.stringify({ value: SECRET });
    expect(redact(once)).not.toContain('quoted');
    expect(redact(JSON.stringify(once))).not.toContain('quoted');
    const asciiOnly = JSON.stringify(SECRET).replace(/é/g, '\\u00e9');
    expect(redact(asciiOnly)).not.toContain('quoted');
  });

  it('redacts percent-encoded forms: upper and lower hex, + for spaces, every byte encoded', () => {
    const encoded = encodeURIComponent(SECRET);
    for (const form of [
      encoded,
      encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
      encoded.replace(/%20/g, '+'),
      [...Buffer.from(SECRET)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
    ]) {
      expect(redact(`https://x.test/?k=${form}&n=1`)).toBe('https://x.test/?k=***&n=1');
    }
  });

  it('redacts Base64 and base64url at all three alignments inside a longer stream', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'abcd']) {
      for (const suffix of ['', 'z', 'zz']) {
        for (const encode of [b64, b64url]) {
          const stream = encode(`${prefix}${SECRET}${suffix}`);
          const redacted = redact(`data:${stream}`);
          expect(redacted, `${encode.name} ${prefix}|${suffix}`).toContain('***');
          // What survives around the mark decodes to no more than the two neighbouring partial characters.
          expect(
            Buffer.from(redacted.replace('data:', '').replace('***', ''), 'base64').toString(),
          ).not.toContain('sk-live');
        }
      }
    }
  });

  it('redacts HTTP Basic credentials, base64(user:secret), for any user name length', () => {
    for (const user of ['a', 'al', 'ali', 'alice', 'service-account']) {
      const header = `Authorization: Basic ${b64(`${user}:${SECRET}`)}`;
      expect(redact(header)).toContain('***');
      expect(redact(header)).not.toContain(b64(SECRET).slice(4, 12));
    }
  });

  it('leaves text without the secret untouched, and ignores values too short to be secrets', () => {
    const text = 'nothing to see: c2stbGl2ZQ== 42';
    expect(redact(text)).toBe(text);
    expect(redactSecretsInText('abc abc', ['abc'])).toBe('abc abc');
  });

  it("redacts only the given user's secrets (another set leaves this text alone)", () => {
    expect(redactSecretsInText(`${SECRET} other-user-secret`, ['other-user-secret'])).toBe(`${SECRET} ***`);
  });

  it('computes the forms once per secret set', () => {
    expect(getSecretRedactor([SECRET, 'second-secret'])).toBe(getSecretRedactor([SECRET, 'second-secret']));
    expect(getSecretRedactor([SECRET])).not.toBe(getSecretRedactor([SECRET, 'second-secret']));
  });

  it('redacts deep values, keys included', () => {
    expect(redactSecretsDeep({ [SECRET]: [b64(`u:${SECRET}`), 1, null] }, [SECRET])).toEqual({
      '***': [expect.stringContaining('***'), 1, null],
    });
  });
});
