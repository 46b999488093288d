/**
 * Stored configuration may carry credentials (an HTTP tool's `auth.value`, an MCP server's headers and env). They are
 * write-only like secrets (seed 003 "Exposição secreta"): responses show MASK, and a MASK sent back in an update
 * keeps the stored value instead of overwriting it.
 */
export const MASK = '***';

type Config = Record<string, unknown>;

function isRecord(value: unknown): value is Config {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Paths of credential-bearing values: `auth.value`, every `headers.*` and `env.*`. */
function maskRecord(config: Config): Config {
  const masked: Config = { ...config };
  if (isRecord(masked.auth) && typeof masked.auth.value === 'string')
    masked.auth = { ...masked.auth, value: MASK };
  for (const key of ['headers', 'env']) {
    const section = masked[key];
    if (isRecord(section)) masked[key] = Object.fromEntries(Object.keys(section).map((name) => [name, MASK]));
  }
  return masked;
}

export function maskConfig(config: Config): Config {
  return maskRecord(config);
}

/** `stored` spread with `changes`, where a masked value in `changes` keeps the stored one. */
export function mergeConfig(stored: Config, changes: Config): Config {
  const merged: Config = { ...stored, ...changes };
  if (isRecord(changes.auth) && changes.auth.value === MASK && isRecord(stored.auth)) {
    merged.auth = { ...changes.auth, value: stored.auth.value };
  }
  for (const key of ['headers', 'env']) {
    const incoming = changes[key];
    const previous = stored[key];
    if (isRecord(incoming) && isRecord(previous)) {
      merged[key] = Object.fromEntries(
        Object.entries(incoming).map(([name, value]) => [name, value === MASK ? previous[name] : value]),
      );
    }
  }
  return merged;
}
