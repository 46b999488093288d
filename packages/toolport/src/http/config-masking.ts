import {
  maskCredentials,
  mergeCredentials,
  type CredentialLayout,
} from '../credentials/config-credentials.ts';

export { MASK } from '../credentials/config-credentials.ts';

/**
 * For a stored row that no longer parses as its kind's config (so its own layout cannot be trusted): every value
 * that could be a credential — `auth.value`, `headers.*`, `env.*` — masked. Valid rows use their kind's layout
 * (`HTTP_TOOL_CREDENTIALS`, `mcpCredentialLayout`) through `credentials/config-credentials.ts`.
 */
const ANY_CREDENTIALS: CredentialLayout = {
  kind: 'config',
  values: [['auth', 'value']],
  maps: ['headers', 'env'],
};

export function maskConfig(config: Record<string, unknown>): Record<string, unknown> {
  return maskCredentials(config, ANY_CREDENTIALS);
}

/** `stored` spread with `changes`, where `***` in a credential slot of `changes` keeps the stored value. */
export function mergeConfig(
  stored: Record<string, unknown>,
  changes: Record<string, unknown>,
): Record<string, unknown> {
  return mergeCredentials(stored, changes, ANY_CREDENTIALS);
}
