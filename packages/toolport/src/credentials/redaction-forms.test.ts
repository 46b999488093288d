import { describe, expect, it } from 'vitest';
import { redactSecretsInText } from '../core/redact-secrets.ts';
import { expandSecretValues } from './redaction-forms.ts';

const SECRET = 'sk-live-7Hq2-secret';

describe('SEC-1 redaction forms', () => {
  it.each([0, 1, 2, 3, 4])(
    'redacts the secret inside longer Base64 and base64url text at offset %i',
    (offset) => {
      const forms = expandSecretValues([SECRET]);
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(`${'p'.repeat(offset)}${SECRET}-trailing`).toString(encoding);
        const redacted = redactSecretsInText(encoded, forms);
        expect(redacted).not.toBe(encoded);
        expect(redacted).toContain('***');
      }
    },
  );

  it('redacts percent-encoded, form-encoded and JSON-escaped forms, and a Basic password alone', () => {
    const quoted = 'pa ss"word/42';
    const forms = expandSecretValues([`alice:${quoted}`]);
    for (const text of [
      encodeURIComponent(quoted),
      encodeURIComponent(quoted).replace(/%20/g, '+'),
      JSON.stringify(quoted),
      `Basic ${Buffer.from(`alice:${quoted}`).toString('base64')}`,
      `password is ${quoted}`,
    ]) {
      const redacted = redactSecretsInText(text, forms);
      expect(redacted).toContain('***');
      expect(redacted).not.toContain('word/42');
      expect(redacted).not.toContain('word%2F42');
    }
  });
});
