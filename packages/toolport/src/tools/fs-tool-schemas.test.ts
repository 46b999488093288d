import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/tool-types.ts';
import { editFileTool } from './edit-file.ts';
import { globTool } from './glob.ts';
import { grepTool } from './grep.ts';
import { listDirectoryTool } from './list-directory.ts';
import { readFileTool } from './read-file.ts';
import { writeFileTool } from './write-file.ts';

const tools = [readFileTool, writeFileTool, editFileTool, listDirectoryTool, globTool, grepTool];

describe.each(tools.map((tool) => [tool.definition.name, tool] as const))('FS schemas: %s', (_name, tool) => {
  const schema = tool.definition.parameters as JsonSchema & {
    properties: Record<string, JsonSchema>;
    required: string[];
  };

  it('is strict-mode compatible: closed object, single-typed properties, no combinators', () => {
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    for (const property of Object.values(schema.properties)) {
      expect(typeof property.type).toBe('string');
      expect(typeof property.description).toBe('string');
    }
    expect(JSON.stringify(schema)).not.toMatch(/"(oneOf|anyOf|allOf|not|\$ref)"/);
    for (const name of schema.required) expect(Object.keys(schema.properties)).toContain(name);
  });

  it('has a description and settings descriptors for the path policy', () => {
    expect(tool.definition.description.length).toBeGreaterThan(80);
    const names = tool.settings.parameterDescriptors.map((descriptor) => descriptor.name);
    expect(names).toEqual(expect.arrayContaining(['allowedPaths', 'deniedPaths']));
    for (const descriptor of tool.settings.parameterDescriptors) {
      expect(tool.settings.defaultParameters[descriptor.name]).toEqual(descriptor.default);
    }
  });
});
