import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../core/tool-types.ts';
import { toolDefsToAnthropic } from './anthropic/anthropic-tool-mapper.ts';
import { inspectProviderTools } from './inspect-provider-tools.ts';
import {
  toolDefsToGeminiFunctionDeclarations,
  toolDefsToGeminiInteractions,
} from './gemini/gemini-tool-mapper.ts';
import { toolDefsToChatCompletions } from './openai-chat/openai-chat-tool-mapper.ts';
import { toolDefsToResponsesAPI } from './openai-responses/openai-responses-tool-mapper.ts';

const search: ToolDefinition = {
  name: 'search',
  description: 'Searches.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1 } },
    required: ['query'],
    additionalProperties: false,
  },
};
const foreign: ToolDefinition = {
  name: 'mcp_lookup',
  description: 'From an MCP server.',
  parameters: { type: 'object', properties: { id: { oneOf: [{ type: 'string' }, { type: 'integer' }] } } },
};
const noArguments: ToolDefinition = {
  name: 'ping',
  description: 'No arguments.',
  parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
};

describe('PROV-1 mappers', () => {
  it('Responses: strict dialect with strict true', () => {
    expect(toolDefsToResponsesAPI([search])).toEqual([
      {
        type: 'function',
        name: 'search',
        description: 'Searches.',
        strict: true,
        parameters: {
          type: 'object',
          properties: { query: { type: 'string' }, limit: { type: ['integer', 'null'], minimum: 1 } },
          required: ['query', 'limit'],
          additionalProperties: false,
        },
      },
    ]);
  });

  it('Responses: a foreign schema is sent unchanged with strict false and the reason reported', () => {
    const reasons: Array<[string, string]> = [];
    const warnings: unknown[] = [];
    const [tool] = toolDefsToResponsesAPI([foreign], {
      onNonStrict: (name, reason) => reasons.push([name, reason]),
      logger: {
        debug: () => {},
        info: () => {},
        error: () => {},
        warn: (object) => warnings.push(object),
      },
    });
    expect(tool).toMatchObject({ name: 'mcp_lookup', strict: false, parameters: foreign.parameters });
    expect(reasons).toEqual([['mcp_lookup', '`id` uses `oneOf`, which strict mode does not allow']]);
    expect(warnings).toHaveLength(1);
  });

  it('Chat Completions: the plain schema, strict only on request', () => {
    expect(toolDefsToChatCompletions([search])).toEqual([
      {
        type: 'function',
        function: { name: 'search', description: 'Searches.', parameters: search.parameters },
      },
    ]);
    expect(toolDefsToChatCompletions([search], { strict: true })[0]!.function.strict).toBe(true);
  });

  it('Anthropic: input_schema keeps optional arguments optional and length limits', () => {
    expect(toolDefsToAnthropic([search])).toEqual([
      { name: 'search', description: 'Searches.', input_schema: search.parameters },
    ]);
  });

  it('Gemini: declarations in Gemini dialect; a tool without arguments has no parameters', () => {
    expect(toolDefsToGeminiFunctionDeclarations([search, noArguments])).toEqual([
      {
        name: 'search',
        description: 'Searches.',
        parameters: {
          type: 'OBJECT',
          properties: { query: { type: 'STRING', minLength: 1 }, limit: { type: 'INTEGER', minimum: 1 } },
          required: ['query'],
        },
      },
      { name: 'ping', description: 'No arguments.' },
    ]);
    expect(toolDefsToGeminiInteractions([foreign])).toEqual([
      {
        type: 'function',
        name: 'mcp_lookup',
        description: 'From an MCP server.',
        parameters: {
          type: 'object',
          properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
        },
      },
    ]);
  });

  it('mappers are pure: the definitions are not modified', () => {
    const before = JSON.stringify([search, foreign]);
    toolDefsToResponsesAPI([search, foreign]);
    toolDefsToChatCompletions([search, foreign], { strict: true });
    toolDefsToAnthropic([search, foreign]);
    toolDefsToGeminiFunctionDeclarations([search, foreign]);
    toolDefsToGeminiInteractions([search, foreign]);
    expect(JSON.stringify([search, foreign])).toBe(before);
  });
});

describe('MCP-3 inspectProviderTools', () => {
  it('shows the wire form, the strict flag and the reason a tool is not strict', () => {
    const inspected = inspectProviderTools('openai', [search, foreign]);
    expect(inspected.map((tool) => [tool.name, tool.strict, tool.nonStrictReason])).toEqual([
      ['search', true, undefined],
      ['mcp_lookup', false, '`id` uses `oneOf`, which strict mode does not allow'],
    ]);
    expect(inspected[0]!.wire).toEqual(toolDefsToResponsesAPI([search])[0]);
    expect(inspectProviderTools('gemini', [noArguments])).toEqual([
      { name: 'ping', strict: false, wire: { name: 'ping', description: 'No arguments.' } },
    ]);
  });
});
