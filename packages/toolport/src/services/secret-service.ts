import { ToolportError } from '../core/errors.ts';
import type { SecretReader } from '../core/tool-types.ts';
import type { SecretMetadata, SecretRepository } from '../persistence/repositories/secret-repository.ts';
import type { SecretCipher } from '../secrets/secret-cipher.ts';

/** Credentials that live outside the secrets table (literal values in stored configs), redacted like secrets. */
export type ExtraSecretValues = (userId: string) => Promise<readonly string[]>;

export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
/** Shorter values would redact ordinary words out of tool output (core's redaction skips them). */
export const MIN_SECRET_VALUE_LENGTH = 4;
export const MAX_SECRET_VALUE_LENGTH = 64 * 1024;

/** SEC-1: write-only secrets. Values leave this service only through a `SecretReader` handed to tools. */
export class SecretService {
  readonly #repository: SecretRepository;
  readonly #cipher: SecretCipher;
  readonly #extraValues: ExtraSecretValues[] = [];

  constructor(repository: SecretRepository, cipher: SecretCipher) {
    this.#repository = repository;
    this.#cipher = cipher;
  }

  /** Adds a source of literal credentials (HTTP tools', MCP servers') to what every reader redacts. */
  addRedactionSource(source: ExtraSecretValues): void {
    this.#extraValues.push(source);
  }

  list(userId: string): Promise<SecretMetadata[]> {
    return this.#repository.list(userId);
  }

  async set(userId: string, name: string, value: string): Promise<SecretMetadata> {
    assertValidSecretName(name);
    if (value.length < MIN_SECRET_VALUE_LENGTH || value.length > MAX_SECRET_VALUE_LENGTH) {
      throw new ToolportError(
        'validation_failed',
        `A secret value must be ${MIN_SECRET_VALUE_LENGTH} to ${MAX_SECRET_VALUE_LENGTH} characters long.`,
        { details: { argument: 'value' } },
      );
    }
    return this.#repository.put(userId, name, this.#cipher.encrypt(userId, name, value));
  }

  async delete(userId: string, name: string): Promise<void> {
    if (!(await this.#repository.delete(userId, name))) throw secretNotFound(name);
  }

  /** What tools receive: the calling user's secrets, decrypted on demand and cached for the reader's lifetime. */
  createReader(userId: string): SecretReader {
    let allValues: Promise<readonly string[]> | undefined;
    return {
      getSecret: async (name) => {
        const stored = await this.#repository.getCiphertext(userId, name);
        return stored === undefined ? undefined : this.#cipher.decrypt(userId, name, stored);
      },
      listSecretValues: () => {
        // Used to redact every tool result: one undecryptable row (a changed key) must not fail every call, so it
        // is skipped here; reading that secret by name still reports the problem.
        allValues ??= Promise.all([
          this.#repository.listCiphertexts(userId).then((rows) =>
            rows.flatMap((row) => {
              try {
                return [this.#cipher.decrypt(userId, row.name, row.ciphertext)];
              } catch {
                return [];
              }
            }),
          ),
          ...this.#extraValues.map((source) => source(userId)),
        ]).then((lists) => lists.flat());
        return allValues;
      },
    };
  }
}

export function assertValidSecretName(name: string): void {
  if (!SECRET_NAME_PATTERN.test(name)) {
    throw new ToolportError(
      'validation_failed',
      `Secret name ${JSON.stringify(name)} is not allowed: use 1-128 letters, digits, "_", "." or "-", starting with a letter or "_".`,
      { details: { argument: 'name' } },
    );
  }
}

function secretNotFound(name: string): ToolportError {
  return new ToolportError('not_found', `No secret named ${JSON.stringify(name)}.`, { details: { name } });
}
