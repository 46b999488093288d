import { ToolportError } from '../core/errors.ts';
import type { SecretReader } from '../core/tool-types.ts';
import type { SecretMetadata, SecretRepository } from '../persistence/repositories/secret-repository.ts';
import type { UserStateCache } from '../persistence/user-state-cache.ts';
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

  /** Issue 11: when set, a reader keeps the rows it read while the user's state token stays the same. */
  readonly #states: Pick<UserStateCache, 'token'> | undefined;

  constructor(repository: SecretRepository, cipher: SecretCipher, states?: Pick<UserStateCache, 'token'>) {
    this.#repository = repository;
    this.#cipher = cipher;
    this.#states = states;
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

  /**
   * What tools receive: the calling user's secrets, decrypted on demand. The rows are read once per reader and user
   * state (issue 11: a write through this process, or a new `state_version` seen by a request, reads them again), so
   * a tool that reads a secret per call does not cost a query per call.
   */
  createReader(userId: string): SecretReader {
    let rows: { token: object; ciphertexts: Promise<ReadonlyMap<string, string>> } | undefined;
    let values: { token: object; list: Promise<readonly string[]> } | undefined;
    const ciphertexts = (token: object): Promise<ReadonlyMap<string, string>> => {
      if (rows?.token !== token) {
        const loading = this.#repository
          .listCiphertexts(userId)
          .then((list) => new Map(list.map((row) => [row.name, row.ciphertext])));
        const entry = { token, ciphertexts: loading };
        rows = entry;
        loading.catch(() => {
          if (rows === entry) rows = undefined;
        });
      }
      return rows.ciphertexts;
    };
    return {
      getSecret: async (name) => {
        const stored =
          this.#states === undefined
            ? await this.#repository.getCiphertext(userId, name)
            : (await ciphertexts(this.#states.token(userId))).get(name);
        return stored === undefined ? undefined : this.#cipher.decrypt(userId, name, stored);
      },
      listSecretValues: () => {
        // Used to redact every tool result: one undecryptable row (a changed key) must not fail every call, so it
        // is skipped here; reading that secret by name still reports the problem.
        const token = this.#states?.token(userId) ?? this;
        if (values?.token !== token) {
          const stored =
            this.#states === undefined
              ? this.#repository
                  .listCiphertexts(userId)
                  .then((list) => list.map((row) => [row.name, row.ciphertext] as const))
              : ciphertexts(token).then((map) => [...map]);
          values = {
            token,
            list: Promise.all([
              stored.then((entries) =>
                entries.flatMap(([name, ciphertext]) => {
                  try {
                    return [this.#cipher.decrypt(userId, name, ciphertext)];
                  } catch {
                    return [];
                  }
                }),
              ),
              ...this.#extraValues.map((source) => source(userId)),
            ]).then((lists) => lists.flat()),
          };
        }
        return values.list;
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
