import { ToolportError } from '../core/errors.ts';
import type { SecretReader } from '../core/tool-types.ts';

const SECRET_REFERENCE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The secret names a template refers to (`Bearer {{API_KEY}}` → `['API_KEY']`). */
export function listSecretReferences(template: string): string[] {
  return [...template.matchAll(SECRET_REFERENCE)].map((match) => match[1]!);
}

/**
 * Replaces every `{{SECRET_NAME}}` in the values with the user's secret (SEC-1), at connect time only: the resolved
 * values live in the transport, never in the stored config or a response. A missing secret fails the connection
 * with a message naming it (not its value).
 */
export async function resolveSecretReferences(
  values: Record<string, string> | undefined,
  secrets: SecretReader | undefined,
  where: string,
): Promise<Record<string, string> | undefined> {
  if (values === undefined) return undefined;
  const resolved: Record<string, string> = {};
  for (const [name, template] of Object.entries(values)) {
    const references = listSecretReferences(template);
    if (references.length === 0) {
      resolved[name] = template;
      continue;
    }
    const lookups = new Map<string, string>();
    for (const reference of references) {
      const value = await secrets?.getSecret(reference);
      if (value === undefined) {
        throw new ToolportError(
          'not_found',
          `${where} ${name} refers to the secret {{${reference}}}, which is not set. Add it in Settings → Secrets.`,
          { details: { secret: reference } },
        );
      }
      lookups.set(reference, value);
    }
    resolved[name] = template.replace(SECRET_REFERENCE, (_, reference: string) => lookups.get(reference)!);
  }
  return resolved;
}
