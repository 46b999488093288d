import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ToolportError } from '../core/errors.ts';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
/** SEC-1: the full 16-byte tag, enforced on decryption (a truncated tag would weaken authentication). */
const TAG_BYTES = 16;
const FORMAT_VERSION = 'v1';

/**
 * AES-256-GCM for secret values. The owner and the secret's name are the associated data, so a ciphertext copied to
 * another user's row (or another name) fails to decrypt instead of leaking.
 */
export class SecretCipher {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) {
      throw new ToolportError(
        'internal_error',
        `The secret key must be ${KEY_BYTES} bytes, got ${key.length}.`,
      );
    }
    this.#key = Buffer.from(key);
  }

  encrypt(ownerId: string, name: string, plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(ownerId, name));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [FORMAT_VERSION, iv, tag, ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  decrypt(ownerId: string, name: string, stored: string): string {
    const [version, ivText, tagText, ciphertextText, ...rest] = stored.split('.');
    if (
      version !== FORMAT_VERSION ||
      ivText === undefined ||
      tagText === undefined ||
      ciphertextText === undefined ||
      rest.length > 0
    ) {
      throw undecryptable(name, 'unknown format');
    }
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw undecryptable(name, 'bad nonce or tag length');
    try {
      const decipher = createDecipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(associatedData(ownerId, name));
      decipher.setAuthTag(tag);
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertextText, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch (error) {
      throw undecryptable(name, 'authentication failed (wrong key, owner or tampered value)', error);
    }
  }
}

function associatedData(ownerId: string, name: string): Buffer {
  return Buffer.from(JSON.stringify(['toolport-secret', FORMAT_VERSION, ownerId, name]), 'utf8');
}

function undecryptable(name: string, reason: string, cause?: unknown): ToolportError {
  return new ToolportError(
    'internal_error',
    `Secret ${JSON.stringify(name)} cannot be decrypted: ${reason}. Was TOOLPORT_SECRET_KEY changed? Set the secret again.`,
    { cause },
  );
}
