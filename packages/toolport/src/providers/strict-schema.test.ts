import { describe, expect, it } from 'vitest';
import { validateToolArguments } from '../core/tool-arguments.ts';
import type { JsonSchema } from '../core/tool-types.ts';
import {
  deriveStrictParameters,
  explainStrictIncompatibility,
  isStrictCompatible,
  toStrictSchema,
} from './strict-schema.ts';

const nested: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[a-z]+$' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    mode: { type: 'string', enum: ['fast', 'slow'] },
    filter: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', maxLength: 20 }, minItems: 1, maxItems: 5 },
        owner: {
          type: 'object',
          properties: { name: { type: 'string' }, team: { type: 'string', minLength: 2 } },
          required: ['name'],
          additionalProperties: false,
        },
      },
      required: ['tags'],
      additionalProperties: false,
    },
    rows: {
      type: 'array',
      items: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'boolean' } },
        required: ['a'],
        additionalProperties: false,
      },
    },
  },
  required: ['query'],
  additionalProperties: false,
};

describe('PROV-2 toStrictSchema', () => {
  const strict = toStrictSchema(nested);

  it('requires every property at every nesting level', () => {
    expect(strict.required).toEqual(['query', 'limit', 'mode', 'filter', 'rows']);
    const filter = (strict.properties as Record<string, JsonSchema>).filter!;
    expect(filter.required).toEqual(['tags', 'owner']);
    const owner = (filter.properties as Record<string, JsonSchema>).owner!;
    expect(owner.required).toEqual(['name', 'team']);
    const rowItems = (strict.properties as Record<string, JsonSchema>).rows!.items as JsonSchema;
    expect(rowItems.required).toEqual(['a', 'b']);
  });

  it('makes formerly optional properties nullable unions and leaves required ones alone', () => {
    const properties = strict.properties as Record<string, JsonSchema>;
    expect(properties.query!.type).toBe('string');
    expect(properties.limit!.type).toEqual(['integer', 'null']);
    expect(properties.mode).toEqual({ type: ['string', 'null'], enum: ['fast', 'slow', null] });
    expect(properties.filter!.type).toEqual(['object', 'null']);
    const owner = (properties.filter!.properties as Record<string, JsonSchema>).owner!;
    expect((owner.properties as Record<string, JsonSchema>).team!.type).toEqual(['string', 'null']);
    expect((owner.properties as Record<string, JsonSchema>).name!.type).toBe('string');
  });

  it('drops length limits and defaults but keeps bounds, enum, pattern and item counts', () => {
    const properties = strict.properties as Record<string, JsonSchema>;
    expect(properties.query).toEqual({ type: 'string', pattern: '^[a-z]+$' });
    expect(properties.limit).toEqual({ type: ['integer', 'null'], minimum: 1, maximum: 50 });
    const tags = (properties.filter!.properties as Record<string, JsonSchema>).tags!;
    expect(tags).toEqual({ type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5 });
    expect(JSON.stringify(strict)).not.toMatch(/minLength|maxLength|default/);
  });

  it('does not modify the source schema', () => {
    const before = JSON.stringify(nested);
    toStrictSchema(nested);
    expect(JSON.stringify(nested)).toBe(before);
  });

  it('produces a strict-compatible schema from a plain one', () => {
    expect(isStrictCompatible(strict)).toBe(true);
    expect(isStrictCompatible(nested)).toBe(false);
  });

  it('closes a declared-properties object that does not say, but keeps a free-form map open', () => {
    const derived = toStrictSchema({
      type: 'object',
      properties: {
        meta: { type: 'object' },
        inner: { type: 'object', properties: { x: { type: 'string' } } },
      },
    });
    expect(derived.additionalProperties).toBe(false);
    const properties = derived.properties as Record<string, JsonSchema>;
    expect(properties.inner!.additionalProperties).toBe(false);
    expect(properties.meta).toEqual({ type: ['object', 'null'] });
    expect(explainStrictIncompatibility(derived)).toBe(
      '`meta` is an object without `additionalProperties: false`',
    );
  });

  it('strict-mode nulls for optional keys read as absent before validation (CORE-5)', () => {
    const args = validateToolArguments(nested, {
      query: 'abc',
      limit: null,
      mode: null,
      filter: { tags: ['x'], owner: { name: 'n', team: null } },
      rows: null,
    });
    expect(args).toEqual({ query: 'abc', filter: { tags: ['x'], owner: { name: 'n' } } });
  });
});

describe('PROV-2 isStrictCompatible', () => {
  const base = (properties: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  });

  it.each([
    ['a root that is not an object', { type: 'string' }, 'the root schema is not `type: "object"`'],
    [
      'a missing additionalProperties',
      { type: 'object', properties: {}, required: [] },
      'the root schema is an object',
    ],
    [
      'an optional property',
      { ...base({ a: { type: 'string' } }), required: [] },
      'property `a` is not in `required`',
    ],
    ['anyOf', base({ a: { anyOf: [{ type: 'string' }, { type: 'number' }] } }), '`a` uses `anyOf`'],
    ['oneOf', base({ a: { oneOf: [{ type: 'string' }] } }), '`a` uses `oneOf`'],
    ['allOf', base({ a: { allOf: [{ type: 'string' }] } }), '`a` uses `allOf`'],
    ['not', base({ a: { type: 'string', not: { const: 'x' } } }), '`a` uses `not`'],
    ['$ref', base({ a: { $ref: '#/$defs/x' } }), '`a` uses `$ref`'],
    ['minLength', base({ a: { type: 'string', minLength: 1 } }), '`a` uses `minLength`'],
    [
      'maxLength deep in array items',
      base({ a: { type: 'array', items: base({ b: { type: 'string', maxLength: 3 } }) } }),
      '`a[].b` uses `maxLength`',
    ],
    [
      'an optional property three levels down',
      base({ a: base({ b: { ...base({ c: { type: 'string' } }), required: [] } }) }),
      'property `a.b.c` is not in `required`',
    ],
  ])('rejects %s', (_label, schema, reason) => {
    expect(isStrictCompatible(schema as JsonSchema)).toBe(false);
    expect(explainStrictIncompatibility(schema as JsonSchema)).toContain(reason);
  });

  it('accepts nested objects and arrays that satisfy every rule', () => {
    expect(
      isStrictCompatible(
        base({ a: base({ b: { type: 'array', items: base({ c: { type: ['string', 'null'] } }) } }) }),
      ),
    ).toBe(true);
  });

  it('a foreign schema that cannot be made strict is sent unchanged with strict false and a reason', () => {
    const foreign: JsonSchema = {
      type: 'object',
      properties: { value: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
      required: ['value'],
    };
    const derivation = deriveStrictParameters(foreign);
    expect(derivation.strict).toBe(false);
    expect(derivation.parameters).toBe(foreign);
    expect(derivation.nonStrictReason).toBe('`value` uses `anyOf`, which strict mode does not allow');
  });
});
