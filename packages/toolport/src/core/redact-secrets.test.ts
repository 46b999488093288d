import { describe, expect, it } from 'vitest';
import { redactingLogger } from './execute-tool.ts';
import { silentLogger } from './logger.ts';
import {
  getSecretRedactor,
  redactSecretsDeep,
  redactSecretsDeepIfPresent,
  redactSecretsInText,
} from './redact-secrets.ts';

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

describe('SEC-1 scan-first deep redaction (redactSecretsDeepIfPresent)', () => {
  const secret = 'sk-scan-first-0123456789';

  it('returns the value itself when no form of a secret occurs in it', () => {
    const value = { status: 200, body: { items: ['a', 'b'], note: 'nothing to hide' } };
    expect(redactSecretsDeepIfPresent(value, [secret])).toBe(value);
  });

  it('redacts every string and key holding a secret, in raw, JSON-escaped and Base64 forms', () => {
    const value = {
      raw: `token ${secret}`,
      [`key-${secret}`]: 1,
      nested: [{ basic: `Basic ${Buffer.from(`user:${secret}`).toString('base64')}` }],
    };
    const redacted = redactSecretsDeepIfPresent(value, [secret]);
    expect(JSON.stringify(redacted)).not.toContain(secret);
    expect(JSON.stringify(redacted)).not.toContain(Buffer.from(`user:${secret}`).toString('base64').slice(8));
    expect(redacted).toMatchObject({ raw: 'token ***', 'key-***': 1 });
  });

  it('redacts a string value and a value JSON cannot serialize (a cycle, a BigInt) by the deep pass', () => {
    expect(redactSecretsDeepIfPresent(`x${secret}y`, [secret])).toBe('x***y');
    expect(redactSecretsDeepIfPresent({ size: 10n, leak: secret }, [secret])).toEqual({
      size: 10n,
      leak: '***',
    });
  });
});

describe('SEC-1 redacting logger', () => {
  const capture = () => {
    const lines: Array<{ object: Record<string, unknown>; message: string | undefined }> = [];
    const write = (object: Record<string, unknown>, message?: string): void =>
      void lines.push({ object, message });
    return { lines, logger: { debug: write, info: write, warn: write, error: write } };
  };

  it('passes the silent logger through untouched', () => {
    expect(redactingLogger(silentLogger, ['some-secret-value'])).toBe(silentLogger);
  });

  it('redacts fields and messages, and a second secret set on the same logger gets its own redaction', () => {
    const { lines, logger } = capture();
    redactingLogger(logger, ['first-secret-value']).info(
      { header: 'first-secret-value' },
      'sent first-secret-value',
    );
    redactingLogger(logger, ['second-secret-value']).warn(
      { header: 'second-secret-value' },
      'second-secret-value',
    );
    expect(lines).toEqual([
      { object: { header: '***' }, message: 'sent ***' },
      { object: { header: '***' }, message: '***' },
    ]);
  });
});

describe('SEC-1 redactor cache', () => {
  it('follows an array that gained a secret after it was first used', () => {
    const secrets = ['first-cached-secret'];
    expect(getSecretRedactor(secrets).redact('first-cached-secret later-added-secret')).toBe(
      '*** later-added-secret',
    );
    secrets.push('later-added-secret');
    expect(getSecretRedactor(secrets).redact('first-cached-secret later-added-secret')).toBe('*** ***');
  });
});
