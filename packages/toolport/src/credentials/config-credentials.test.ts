import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretCipher } from '../secrets/secret-cipher.ts';
import {
  ConfigCredentials,
  maskCredentials,
  mergeCredentials,
  restoreMaskedCredentials,
  type CredentialLayout,
} from './config-credentials.ts';

const layout: CredentialLayout = {
  kind: 'test-config',
  values: [['auth', 'value']],
  maps: ['headers'],
  plainKeys: ['content-type'],
};

const credentials = new ConfigCredentials(new SecretCipher(randomBytes(32)));

const plain = {
  url: 'https://api.example.test/',
  auth: { type: 'bearer', value: 'literal-token-123' },
  headers: {
    'X-Key': 'literal-key-456',
    'X-Ref': 'Bearer {{API_TOKEN}}',
    'Content-Type': 'application/json',
  },
};

describe('SEC-1 credentials in stored configs', () => {
  it('seals literals (encrypted, bound to the owner), leaves templates and plain keys as written, and opens them back', () => {
    const sealed = credentials.seal('owner-1', plain, layout);
    const text = JSON.stringify(sealed);
    expect(text).not.toContain('literal-token-123');
    expect(text).not.toContain('literal-key-456');
    expect(sealed).toMatchObject({
      auth: { value: { $encrypted: expect.any(String) } },
      headers: { 'X-Ref': 'Bearer {{API_TOKEN}}', 'Content-Type': 'application/json' },
    });
    expect(credentials.open('owner-1', sealed, layout)).toEqual(plain);
    // Copied to another user's row, the ciphertext does not decrypt.
    expect(() => credentials.open('owner-2', sealed, layout)).toThrow(/cannot be decrypted/);
  });

  it('masks literals (sealed or not) as *** and shows secret references as their template', () => {
    const expected = {
      url: plain.url,
      auth: { type: 'bearer', value: '***' },
      headers: { 'X-Key': '***', 'X-Ref': 'Bearer {{API_TOKEN}}', 'Content-Type': 'application/json' },
    };
    expect(maskCredentials(plain, layout)).toEqual(expected);
    expect(maskCredentials(credentials.seal('owner-1', plain, layout), layout)).toEqual(expected);
  });

  it('merges by spread: *** keeps the stored value of its slot, another value replaces it, *** with nothing stored is refused', () => {
    const stored = credentials.seal('owner-1', plain, layout);
    const merged = mergeCredentials(
      stored,
      { timeout: 5, auth: { type: 'bearer', value: '***' }, headers: { 'X-Key': 'new-key-789' } },
      layout,
    );
    expect(credentials.open('owner-1', merged, layout)).toEqual({
      url: plain.url,
      timeout: 5,
      auth: { type: 'bearer', value: 'literal-token-123' },
      headers: { 'X-Key': 'new-key-789' },
    });
    expect(() => mergeCredentials(stored, { headers: { 'X-Other': '***' } }, layout)).toThrow(
      /headers.X-Other/,
    );
    expect(() => mergeCredentials({}, { auth: { type: 'bearer', value: '***' } }, layout)).toThrow(
      /auth.value/,
    );
    // A full replacement keeps only the fields it names.
    expect(restoreMaskedCredentials({ headers: { 'X-Key': '***' } }, stored, layout)).toEqual({
      headers: { 'X-Key': (stored.headers as Record<string, unknown>)['X-Key'] },
    });
  });

  it('lists the plaintext literal values for redaction, honouring redactedKeys', () => {
    const sealed = credentials.seal('owner-1', plain, layout);
    expect(credentials.literalValues('owner-1', sealed, layout).sort()).toEqual([
      'literal-key-456',
      'literal-token-123',
    ]);
    const envLayout: CredentialLayout = { kind: 'env', values: [], maps: ['env'], redactedKeys: /TOKEN/ };
    const env = { env: { NODE_ENV: 'production', GITHUB_TOKEN: 'ghp-secret-value' } };
    expect(
      credentials.literalValues('owner-1', credentials.seal('owner-1', env, envLayout), envLayout),
    ).toEqual(['ghp-secret-value']);
  });
});
