import { describe, expect, it } from 'vitest';
import { getDefaultToolSettings } from '../../src/core/settings-policy.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { toolDefsToAnthropic } from '../../src/providers/anthropic/anthropic-tool-mapper.ts';
import {
  toolDefsToGeminiFunctionDeclarations,
  toolDefsToGeminiInteractions,
} from '../../src/providers/gemini/gemini-tool-mapper.ts';
import { toolDefsToChatCompletions } from '../../src/providers/openai-chat/openai-chat-tool-mapper.ts';
import { toolDefsToResponsesAPI } from '../../src/providers/openai-responses/openai-responses-tool-mapper.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

// Iterates whatever is registered: built-ins added by later issues are covered without touching this file.
// A tool with `buildDefinition` is checked as the provider receives it under default settings.
const definitions = registerBuiltinTools(new ToolRegistry())
  .list()
  .map((tool) => tool.buildDefinition?.(getDefaultToolSettings(tool)) ?? tool.definition);

describe('PROV-2 every built-in is strict', () => {
  it('has built-ins to check', () => {
    expect(definitions.length).toBeGreaterThan(0);
  });

  it.each(definitions.map((definition) => [definition.name, definition] as const))(
    '%s is sent with strict: true',
    (name, definition) => {
      const reasons: string[] = [];
      const [tool] = toolDefsToResponsesAPI([definition], {
        onNonStrict: (_, reason) => reasons.push(reason),
      });
      expect(reasons, `${name} cannot be made strict`).toEqual([]);
      expect(tool!.strict).toBe(true);
    },
  );
});

describe('PROV-1 wire schema snapshots of every built-in', () => {
  const mappers = {
    'openai-responses': () => toolDefsToResponsesAPI(definitions),
    'openai-chat': () => toolDefsToChatCompletions(definitions),
    'openai-chat-strict': () => toolDefsToChatCompletions(definitions, { strict: true }),
    anthropic: () => toolDefsToAnthropic(definitions),
    'gemini-generate-content': () => toolDefsToGeminiFunctionDeclarations(definitions),
    'gemini-interactions': () => toolDefsToGeminiInteractions(definitions),
  };
  it.each(Object.entries(mappers))('%s', async (provider, map) => {
    const wire = map();
    expect(wire).toHaveLength(definitions.length);
    for (const [index, definition] of definitions.entries()) {
      await expect(`${JSON.stringify(wire[index], null, 2)}\n`).toMatchFileSnapshot(
        `./__snapshots__/wire-schemas/${provider}/${definition.name}.json`,
      );
    }
  });
});
