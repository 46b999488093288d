import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../core/tool-types.ts';
import { toGeminiSchema } from './to-gemini-schema.ts';

describe('PROV-1 Gemini schema dialect', () => {
  it('removes the keywords Gemini rejects and keeps length limits', () => {
    const converted = toGeminiSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^a' },
        meta: { type: 'object', additionalProperties: { type: 'string' }, propertyNames: { pattern: '^x' } },
      },
      required: ['name', 'ghost'],
      additionalProperties: false,
    });
    expect(converted).toEqual({
      type: 'OBJECT',
      properties: {
        name: { type: 'STRING', minLength: 1, maxLength: 64, pattern: '^a' },
        meta: { type: 'OBJECT' },
      },
      required: ['name'],
    });
  });

  it('turns type lists into nullable or anyOf', () => {
    expect(toGeminiSchema({ type: ['integer', 'null'], minimum: 1 })).toEqual({
      type: 'INTEGER',
      nullable: true,
      minimum: 1,
    });
    expect(toGeminiSchema({ type: ['string', 'number'] }, 'lower')).toEqual({
      anyOf: [{ type: 'string' }, { type: 'number' }],
    });
  });

  it('converts const and non-string enums deliberately', () => {
    expect(toGeminiSchema({ const: 'fixed' })).toEqual({ type: 'STRING', enum: ['fixed'] });
    expect(toGeminiSchema({ const: 3, description: 'Version' })).toEqual({
      type: 'INTEGER',
      description: 'Version (must be 3)',
    });
    expect(toGeminiSchema({ enum: [1, 2, 3] })).toEqual({ type: 'INTEGER', description: 'one of 1, 2, 3' });
    expect(toGeminiSchema({ type: 'string', enum: ['a', 'b', null] })).toEqual({
      type: 'STRING',
      enum: ['a', 'b'],
      nullable: true,
    });
  });

  it('inlines $ref from $defs and cuts recursion', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      $defs: {
        node: {
          type: 'object',
          properties: { value: { type: 'string' }, child: { $ref: '#/$defs/node' } },
        },
      },
    };
    const converted = toGeminiSchema(schema, 'lower');
    expect(JSON.stringify(converted)).not.toContain('"$ref"');
    expect(JSON.stringify(converted)).not.toContain('"$defs"');
    const root = (converted.properties as Record<string, JsonSchema>).root!;
    expect(root.type).toBe('object');
    const child = (root.properties as Record<string, JsonSchema>).child!;
    const grandchild = (child.properties as Record<string, JsonSchema>).child!;
    expect(grandchild).toEqual({ type: 'object', description: 'recursive structure (#/$defs/node)' });
  });

  it('maps oneOf to anyOf, merges allOf, and converts exclusive bounds', () => {
    expect(toGeminiSchema({ oneOf: [{ type: 'string' }, { type: 'integer' }] }, 'lower')).toEqual({
      anyOf: [{ type: 'string' }, { type: 'integer' }],
    });
    expect(
      toGeminiSchema(
        {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'integer', exclusiveMinimum: 0 } } },
          ],
        },
        'lower',
      ),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer', minimum: 1 } },
      required: ['a'],
    });
  });

  it('drops unknown formats and keeps the ones Gemini knows', () => {
    expect(toGeminiSchema({ type: 'string', format: 'email' })).toEqual({ type: 'STRING' });
    expect(toGeminiSchema({ type: 'string', format: 'date-time' })).toEqual({
      type: 'STRING',
      format: 'date-time',
    });
  });
});
