import { parseToolArgumentsJson } from '../core/tool-arguments.ts';

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = parseToolArgumentsJson(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A call's raw argument text as the object a provider's history needs (Anthropic `input`, Gemini `args`). A malformed
 * text was already answered with a validation error result, so it replays as `{}`.
 */
export function argumentsAsObject(text: string): Record<string, unknown> {
  return parsedObject(text) ?? {};
}

/**
 * A call's argument text for a history that carries text (Chat Completions, Responses): the model's own text when it
 * is a JSON object, else `{}`. Some servers reject a history whose arguments do not parse; the validation error the
 * model needs was already sent as the call's result.
 */
export function argumentsAsObjectText(text: string): string {
  if (text.trim() === '') return '{}';
  return parsedObject(text) === undefined ? '{}' : text;
}

/**
 * Argument fragments as text. Some OpenAI-compatible servers send `arguments` as a JSON object instead of a string;
 * it is the same call, serialized once here.
 */
export function argumentsFragmentText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
