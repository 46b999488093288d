import { parseToolArgumentsJson } from '../core/tool-arguments.ts';

/**
 * A call's raw argument text as the object a provider's history needs (Anthropic `input`, Gemini `args`). A malformed
 * text was already answered with a validation error result, so it replays as `{}`.
 */
export function argumentsAsObject(text: string): Record<string, unknown> {
  try {
    const parsed = parseToolArgumentsJson(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
