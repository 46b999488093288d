import type { Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ToolDefinition } from '../../core/tool-types.ts';

/**
 * SPEC PROV-1: `{name, description, input_schema}`. Anthropic reads plain JSON Schema (draft 2020-12), so the
 * source schema goes as it is: optional arguments stay optional and `minLength`/`maxLength` stay announced.
 */
export function toolDefsToAnthropic(definitions: readonly ToolDefinition[]): Tool[] {
  return definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    input_schema: { ...definition.parameters, type: 'object' },
  }));
}
