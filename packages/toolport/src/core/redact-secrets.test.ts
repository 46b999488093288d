import { describe, expect, it } from 'vitest';
import { redactSecretsDeep, redactSecretsInText, withEncodedSecretVariants } from './redact-secrets.ts';

describe('SEC-1 secret redaction in encoded forms', () => {
  const secret = 'tk-live-9f8e/7d6c+5b4a';
  const variants = withEncodedSecretVariants([secret]);

  it('redacts the raw, URL-encoded and JSON-escaped value', () => {
    expect(redactSecretsInText(`key=${secret}`, variants)).toBe('key=***');
    expect(redactSecretsInText(`q=${encodeURIComponent(secret)}&x=1`, variants)).toBe('q=***&x=1');
    const quoted = withEncodedSecretVariants(['pa"ss\\word']);
    expect(redactSecretsInText(JSON.stringify({ p: 'pa"ss\\word' }), quoted)).toBe('{"p":"***"}');
  });

  it('redacts Base64 (standard and URL-safe) at every byte alignment inside a longer text', () => {
    for (const prefix of ['', 'a', 'ab', 'user:', 'Basic ']) {
      const standard = Buffer.from(`${prefix}${secret}-suffix`).toString('base64');
      const urlSafe = Buffer.from(`${prefix}${secret}-suffix`).toString('base64url');
      expect(redactSecretsInText(standard, variants)).toContain('***');
      expect(redactSecretsInText(urlSafe, variants)).toContain('***');
    }
  });

  it('leaves short secrets and unrelated text alone', () => {
    expect(withEncodedSecretVariants(['abc'])).toEqual([]);
    expect(redactSecretsDeep({ text: 'nothing secret here' }, variants)).toEqual({
      text: 'nothing secret here',
    });
  });
});
