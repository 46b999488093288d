/**
 * SPEC CORE-7: a result is serialized once, deterministically, for the model (JSON text with a size cap and a
 * truncation notice); the structured value is kept for the UI and API.
 */

export const DEFAULT_MAX_RESULT_CHARACTERS = 100_000;

export interface SerializedToolResult {
  /** The text the model receives. */
  text: string;
  /** Length of the full serialization before the cap. */
  fullLength: number;
  truncated: boolean;
}

function safeReplacer(): (key: string, value: unknown) => unknown {
  const ancestors: object[] = [];
  return function (this: unknown, _key: string, value: unknown): unknown {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return { name: value.name, message: value.message };
    if (value instanceof Uint8Array) return `<${value.byteLength} bytes>`;
    if (typeof value !== 'object' || value === null) return value;
    // `this` is the object holding the current key: pop ancestors that are no longer on the path.
    while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
    if (ancestors.includes(value)) return '[Circular]';
    ancestors.push(value);
    return value;
  };
}

/** JSON text of any value: strings pass through as they are, undefined becomes "null", cycles become "[Circular]". */
export function stringifyToolResult(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'null';
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return JSON.stringify(value, safeReplacer()) ?? 'null';
  }
}

export function serializeToolResult(
  value: unknown,
  maxCharacters: number = DEFAULT_MAX_RESULT_CHARACTERS,
): SerializedToolResult {
  return capToolResultText(stringifyToolResult(value), maxCharacters);
}

/** `stringifyToolResult`'s text under the cap, with the truncation notice when it is longer. */
export function capToolResultText(
  text: string,
  maxCharacters: number = DEFAULT_MAX_RESULT_CHARACTERS,
): SerializedToolResult {
  if (text.length <= maxCharacters) return { text, fullLength: text.length, truncated: false };
  const notice =
    `\n[toolport: result truncated: showing ${maxCharacters} of ${text.length} characters. ` +
    'Ask for less (a narrower path, a smaller window, fewer results) to see the rest.]';
  return { text: text.slice(0, maxCharacters) + notice, fullLength: text.length, truncated: true };
}
