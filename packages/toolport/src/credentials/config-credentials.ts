import { ToolportError } from '../core/errors.ts';
import type { SecretCipher } from '../secrets/secret-cipher.ts';

/**
 * SEC-1 / HTTP-1 / MCP-1: the one module for credentials stored inside a configuration (an HTTP tool's `auth.value`
 * and header values, an MCP server's header and environment values). Every such value is either
 * - a **template** holding `{{NAME}}` placeholders (secret references, tool arguments): not itself a secret, stored and
 *   shown as written, resolved at call time; or
 * - a **literal**: treated as a secret — encrypted at rest (AES-256-GCM, bound to the owner and the field), never
 *   returned (`***` in every response), redacted from results, and kept when an update sends `***` back.
 *
 * Callers describe where credentials live with a `CredentialLayout`; the functions here seal, open, mask and merge.
 */
export const MASK = '***';

/** The stored form of a literal: an object, so no string a user writes can pass for an encrypted value. */
export interface SealedCredential {
  $encrypted: string;
}

export interface CredentialLayout {
  /** Names the kind of config in the cipher's associated data (`http-tool`, `mcp-server`). */
  kind: string;
  /** Single values by path, e.g. `['auth', 'value']`. */
  values: ReadonlyArray<readonly [string, string]>;
  /** String maps whose every value is a credential, e.g. `headers`, `env`. */
  maps: readonly string[];
  /** Map entries that are never credentials (compared lower-case), e.g. `content-type`: stored and shown plainly. */
  plainKeys?: readonly string[];
  /**
   * When set, only map entries whose name matches are redacted from results (all are still masked and sealed): an
   * MCP server's `NODE_ENV=production` must not erase "production" from every result.
   */
  redactedKeys?: RegExp;
}

type Config = Record<string, unknown>;

const PLACEHOLDER = /\{\{\s*[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}/;

export function isTemplateValue(value: string): boolean {
  return PLACEHOLDER.test(value);
}

export function isSealed(value: unknown): value is SealedCredential {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SealedCredential).$encrypted === 'string' &&
    Object.keys(value).length === 1
  );
}

function isRecord(value: unknown): value is Config {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Visits every credential slot of `config`: `visit(value, fieldName)` returns the replacement. */
function mapCredentials(
  config: Config,
  layout: CredentialLayout,
  visit: (value: unknown, field: string) => unknown,
): Config {
  const result: Config = { ...config };
  for (const [section, key] of layout.values) {
    const holder = result[section];
    if (isRecord(holder) && holder[key] !== undefined) {
      result[section] = { ...holder, [key]: visit(holder[key], `${section}.${key}`) };
    }
  }
  const plain = new Set((layout.plainKeys ?? []).map((key) => key.toLowerCase()));
  for (const section of layout.maps) {
    const map = result[section];
    if (!isRecord(map)) continue;
    result[section] = Object.fromEntries(
      Object.entries(map).map(([name, value]) => [
        name,
        plain.has(name.toLowerCase()) ? value : visit(value, `${section}.${name}`),
      ]),
    );
  }
  return result;
}

export class ConfigCredentials {
  readonly #cipher: SecretCipher;

  constructor(cipher: SecretCipher) {
    this.#cipher = cipher;
  }

  /** Encrypts every literal (plaintext, never-sealed) credential of a validated config for storage. */
  seal(ownerId: string, config: Config, layout: CredentialLayout): Config {
    return mapCredentials(config, layout, (value, field) => {
      if (typeof value !== 'string' || isTemplateValue(value)) return value;
      return { $encrypted: this.#cipher.encrypt(ownerId, `${layout.kind}:${field}`, value) };
    });
  }

  /** The plaintext config a tool or connection runs with. */
  open(ownerId: string, config: Config, layout: CredentialLayout): Config {
    return mapCredentials(config, layout, (value, field) =>
      isSealed(value) ? this.#cipher.decrypt(ownerId, `${layout.kind}:${field}`, value.$encrypted) : value,
    );
  }

  /** The plaintext literal values of a stored config (for redaction). Undecryptable ones are skipped. */
  literalValues(ownerId: string, config: Config, layout: CredentialLayout): string[] {
    const values: string[] = [];
    mapCredentials(config, layout, (value, field) => {
      const key = field.slice(field.indexOf('.') + 1);
      const isMapEntry = layout.maps.some((section) => field.startsWith(`${section}.`));
      if (isMapEntry && layout.redactedKeys !== undefined && !layout.redactedKeys.test(key)) return value;
      if (isSealed(value)) {
        try {
          values.push(this.#cipher.decrypt(ownerId, `${layout.kind}:${field}`, value.$encrypted));
        } catch {
          // A changed key: the call using it fails on its own; redaction must not fail every other call.
        }
      } else if (typeof value === 'string' && !isTemplateValue(value)) values.push(value);
      return value;
    });
    return values;
  }
}

/** What a response shows: literals (sealed or not) as `***`, templates as written. */
export function maskCredentials(config: Config, layout: CredentialLayout): Config {
  return mapCredentials(config, layout, (value) =>
    isSealed(value) || (typeof value === 'string' && !isTemplateValue(value)) ? MASK : value,
  );
}

/**
 * An update merged into a stored (sealed) config: top-level fields by spread, each credential section replaced as a
 * whole, where a value equal to `***` keeps the stored value of the same slot and any other value replaces it.
 * `***` with nothing stored under that slot is refused (it would store the mask itself).
 */
export function mergeCredentials(stored: Config, changes: Config, layout: CredentialLayout): Config {
  const merged: Config = { ...stored, ...changes };
  const keep = (field: string, previous: unknown): unknown => {
    if (previous === undefined || (typeof previous === 'string' && isTemplateValue(previous))) {
      throw new ToolportError(
        'validation_failed',
        `\`${field}\` is "${MASK}" but no stored credential is there to keep: send the value itself.`,
        { details: { field } },
      );
    }
    return previous;
  };
  for (const [section, key] of layout.values) {
    const incoming = changes[section];
    const previous = stored[section];
    if (isRecord(incoming) && incoming[key] === MASK) {
      merged[section] = {
        ...incoming,
        [key]: keep(`${section}.${key}`, isRecord(previous) ? previous[key] : undefined),
      };
    }
  }
  for (const section of layout.maps) {
    const incoming = changes[section];
    if (!isRecord(incoming)) continue;
    const previous = isRecord(stored[section]) ? stored[section] : {};
    merged[section] = Object.fromEntries(
      Object.entries(incoming).map(([name, value]) => [
        name,
        value === MASK ? keep(`${section}.${name}`, previous[name]) : value,
      ]),
    );
  }
  return merged;
}

/** Like `mergeCredentials` for a full replacement (MCP PUT): only `***` slots take the stored value. */
export function restoreMaskedCredentials(next: Config, stored: Config, layout: CredentialLayout): Config {
  const merged = mergeCredentials(stored, next, layout);
  return Object.fromEntries(Object.keys(next).map((key) => [key, merged[key]]));
}
