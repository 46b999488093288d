/** Conversions between the portable column types (database-schema.ts) and JavaScript values. */

export function currentTimestamp(): string {
  return new Date().toISOString();
}

export function toFlag(value: boolean): number {
  return value ? 1 : 0;
}

export function fromFlag(value: number | boolean | null): boolean {
  return value === true || value === 1 || (value as unknown) === '1';
}

/** A stored JSON object; anything else (corrupt text, an array) reads as `{}` so one bad row breaks nothing. */
export function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A JSON text column read without trusting it: null is absent, unparsable text comes back as the text itself. */
export function parseJsonColumn(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
