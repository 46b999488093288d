import type { FunctionDeclaration, Schema } from '@google/genai';
import type { ToolDefinition } from '../../core/tool-types.ts';
import { toGeminiSchema } from './to-gemini-schema.ts';

/** The Interactions API's function tool: `{type:'function', name, description, parameters}` (JSON Schema subset). */
export interface GeminiInteractionsFunctionTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** SPEC PROV-1: Gemini Interactions API tools, with the schema converted to a dialect Gemini accepts. */
export function toolDefsToGeminiInteractions(
  definitions: readonly ToolDefinition[],
): GeminiInteractionsFunctionTool[] {
  return definitions.map((definition) => ({
    type: 'function',
    name: definition.name,
    description: definition.description,
    parameters: toGeminiSchema(definition.parameters, 'lower'),
  }));
}

/** Gemini `generateContent` function declarations (`tools: [{functionDeclarations}]`), same conversion. */
export function toolDefsToGeminiFunctionDeclarations(
  definitions: readonly ToolDefinition[],
): FunctionDeclaration[] {
  return definitions.map((definition) => {
    const parameters = toGeminiSchema(definition.parameters, 'upper');
    // A tool without arguments is declared without `parameters`: Gemini refuses an OBJECT with no properties.
    return parameters.properties === undefined
      ? { name: definition.name, description: definition.description }
      : { name: definition.name, description: definition.description, parameters: parameters as Schema };
  });
}
