import type { ToolDefinition } from '../core/tool-types.ts';
import { toolDefsToAnthropic } from './anthropic/anthropic-tool-mapper.ts';
import {
  toolDefsToGeminiFunctionDeclarations,
  toolDefsToGeminiInteractions,
} from './gemini/gemini-tool-mapper.ts';
import { toolDefsToChatCompletions } from './openai-chat/openai-chat-tool-mapper.ts';
import { toolDefsToResponsesAPI } from './openai-responses/openai-responses-tool-mapper.ts';
import type { ProviderName } from './provider-adapter.ts';

export interface InspectedProviderTool {
  name: string;
  /** Only the Responses API (and Chat Completions when asked) has a strict flag; elsewhere false. */
  strict: boolean;
  /** Why a tool that could be strict is sent without it (PROV-2: visible in the capability inspector). */
  nonStrictReason?: string;
  /** Exactly what the provider receives for this tool. */
  wire: unknown;
}

/**
 * MCP-3: the tool list a provider would receive, with strict flags and reasons, computed by the same mappers a turn
 * uses. Feed it `runtime.tools.map((tool) => tool.definition)` from `getEnabledToolRuntime`.
 */
export function inspectProviderTools(
  provider: ProviderName,
  definitions: readonly ToolDefinition[],
): InspectedProviderTool[] {
  const reasons = new Map<string, string>();
  const onNonStrict = (name: string, reason: string): void => void reasons.set(name, reason);
  switch (provider) {
    case 'openai':
      return toolDefsToResponsesAPI(definitions, { onNonStrict }).map((tool) => ({
        name: tool.name,
        strict: tool.strict === true,
        ...(reasons.has(tool.name) ? { nonStrictReason: reasons.get(tool.name)! } : {}),
        wire: tool,
      }));
    case 'openai-chat':
      return toolDefsToChatCompletions(definitions).map((tool) => ({
        name: tool.function.name,
        strict: false,
        wire: tool,
      }));
    case 'anthropic':
      return toolDefsToAnthropic(definitions).map((tool) => ({ name: tool.name, strict: false, wire: tool }));
    case 'gemini':
      return toolDefsToGeminiFunctionDeclarations(definitions).map((tool) => ({
        name: tool.name ?? '',
        strict: false,
        wire: tool,
      }));
    case 'gemini-interactions':
      return toolDefsToGeminiInteractions(definitions).map((tool) => ({
        name: tool.name,
        strict: false,
        wire: tool,
      }));
  }
}
