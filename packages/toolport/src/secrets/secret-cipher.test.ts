import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretCipher } from './secret-cipher.ts';

describe('SEC-1 secret cipher (AES-256-GCM)', () => {
  const cipher = new SecretCipher(randomBytes(32));

  it('round-trips and never stores the plaintext; each encryption uses a fresh nonce', () => {
    const first = cipher.encrypt('user-a', 'KEY', 'plain value');
    const second = cipher.encrypt('user-a', 'KEY', 'plain value');
    expect(first).not.toContain('plain value');
    expect(first).not.toBe(second);
    expect(cipher.decrypt('user-a', 'KEY', first)).toBe('plain value');
  });

  it('binds the owner and the name as associated data', () => {
    const stored = cipher.encrypt('user-a', 'KEY', 'plain value');
    expect(() => cipher.decrypt('user-b', 'KEY', stored)).toThrow(/authentication failed/);
    expect(() => cipher.decrypt('user-a', 'OTHER', stored)).toThrow(/authentication failed/);
  });

  it('enforces the full 16-byte tag: a truncated tag is refused before decryption', () => {
    const [version, iv, tag, ciphertext] = cipher.encrypt('user-a', 'KEY', 'plain value').split('.');
    const shortTag = Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => cipher.decrypt('user-a', 'KEY', [version, iv, shortTag, ciphertext].join('.'))).toThrow(
      /tag length/,
    );
  });

  it('detects tampering and a wrong key', () => {
    const stored = cipher.encrypt('user-a', 'KEY', 'plain value');
    const parts = stored.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => cipher.decrypt('user-a', 'KEY', parts.join('.'))).toThrow(/cannot be decrypted/);
    expect(() => new SecretCipher(randomBytes(32)).decrypt('user-a', 'KEY', stored)).toThrow(
      /cannot be decrypted/,
    );
    expect(() => cipher.decrypt('user-a', 'KEY', 'garbage')).toThrow(/unknown format/);
    expect(() => new SecretCipher(randomBytes(16))).toThrow(/32 bytes/);
  });
});
