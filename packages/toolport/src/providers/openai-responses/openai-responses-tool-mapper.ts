import type { FunctionTool } from 'openai/resources/responses/responses';
import type { ToolDefinition } from '../../core/tool-types.ts';
import { deriveStrictParameters } from '../strict-schema.ts';
import { reportNonStrict, type ToolMapperOptions } from '../tool-mapper-options.ts';

/**
 * SPEC PROV-1/PROV-2: `{type:'function', name, description, parameters, strict}` for the Responses API. The strict
 * dialect is derived per tool; a schema that cannot be made strict is sent unchanged with `strict: false` and the
 * reason reported through `options`.
 */
export function toolDefsToResponsesAPI(
  definitions: readonly ToolDefinition[],
  options?: ToolMapperOptions,
): FunctionTool[] {
  return definitions.map((definition) => {
    const derivation = deriveStrictParameters(definition.parameters);
    if (derivation.nonStrictReason !== undefined)
      reportNonStrict(options, definition.name, derivation.nonStrictReason);
    return {
      type: 'function',
      name: definition.name,
      description: definition.description,
      parameters: derivation.parameters,
      strict: derivation.strict,
    };
  });
}
