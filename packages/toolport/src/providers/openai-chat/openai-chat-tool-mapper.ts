import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions/completions';
import type { ToolDefinition } from '../../core/tool-types.ts';
import { deriveStrictParameters } from '../strict-schema.ts';
import { reportNonStrict, type ToolMapperOptions } from '../tool-mapper-options.ts';

export interface ChatCompletionsMapperOptions extends ToolMapperOptions {
  /**
   * Send the strict dialect with `strict: true` (OpenAI itself). Off by default: most OpenAI-compatible servers
   * (Ollama, vLLM, llama.cpp, LM Studio) ignore or reject `strict`, and the plain schema keeps length limits visible.
   */
  strict?: boolean;
}

/** SPEC PROV-1: `ChatCompletionTool[]` for Chat Completions and every OpenAI-compatible server. */
export function toolDefsToChatCompletions(
  definitions: readonly ToolDefinition[],
  options?: ChatCompletionsMapperOptions,
): ChatCompletionFunctionTool[] {
  return definitions.map((definition) => {
    if (options?.strict !== true) {
      return {
        type: 'function',
        function: {
          name: definition.name,
          description: definition.description,
          parameters: definition.parameters,
        },
      };
    }
    const derivation = deriveStrictParameters(definition.parameters);
    if (derivation.nonStrictReason !== undefined)
      reportNonStrict(options, definition.name, derivation.nonStrictReason);
    return {
      type: 'function',
      function: {
        name: definition.name,
        description: definition.description,
        parameters: derivation.parameters,
        strict: derivation.strict,
      },
    };
  });
}
