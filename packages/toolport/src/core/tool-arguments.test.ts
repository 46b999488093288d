import { describe, expect, it } from 'vitest';
import { makeFivePropertyTool } from '../../test/support/test-tools.ts';
import { ToolArgumentError } from './errors.ts';
import { countCompiledValidators, parseToolArgumentsJson, validateToolArguments } from './tool-arguments.ts';
import type { JsonSchema } from './tool-types.ts';

const schema = makeFivePropertyTool().definition.parameters;

function argumentError(run: () => unknown): ToolArgumentError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolArgumentError) return error;
    throw error;
  }
  throw new Error('expected a ToolArgumentError');
}

describe('CORE-5 arguments', () => {
  it('accepts valid arguments unchanged', () => {
    const args = { name: 'a', count: 3, enabled: true, tags: ['x'], mode: 'fast' };
    expect(validateToolArguments(schema, args)).toEqual(args);
  });

  it('reads null as absent, so strict-mode nulls take the omitted-key path', () => {
    expect(
      validateToolArguments(schema, { name: 'a', count: null, enabled: null, tags: null, mode: null }),
    ).toEqual({
      name: 'a',
    });
  });

  it('reads null as absent at nested levels too', () => {
    const nested: JsonSchema = {
      type: 'object',
      properties: {
        filter: {
          type: 'object',
          properties: { limit: { type: 'integer' }, term: { type: 'string' } },
          required: ['term'],
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    };
    expect(validateToolArguments(nested, { filter: { term: 't', limit: null } })).toEqual({
      filter: { term: 't' },
    });
  });

  it('keeps null where the schema itself accepts null', () => {
    const nullable: JsonSchema = { type: 'object', properties: { cursor: { type: ['string', 'null'] } } };
    expect(validateToolArguments(nullable, { cursor: null })).toEqual({ cursor: null });
  });

  it('keeps a null that a $ref or anyOf subschema allows (pydantic-style nested Optional)', () => {
    const withRef: JsonSchema = {
      type: 'object',
      properties: { filter: { $ref: '#/$defs/Filter' } },
      required: ['filter'],
      $defs: {
        Filter: {
          type: 'object',
          properties: { owner: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
          required: ['owner'],
        },
      },
    };
    expect(validateToolArguments(withRef, { filter: { owner: null } })).toEqual({ filter: { owner: null } });
    const withAnyOf: JsonSchema = {
      type: 'object',
      properties: {
        filter: {
          anyOf: [
            { type: 'object', properties: { owner: { type: ['string', 'null'] } }, required: ['owner'] },
            { type: 'null' },
          ],
        },
      },
    };
    expect(validateToolArguments(withAnyOf, { filter: { owner: null } })).toEqual({
      filter: { owner: null },
    });
  });

  it('shares one compiled validator between equal schemas rebuilt per call', () => {
    const build = (): JsonSchema => ({
      type: 'object',
      properties: { n: { type: 'integer' } },
      additionalProperties: false,
    });
    const before = countCompiledValidators();
    for (let index = 0; index < 50; index += 1) validateToolArguments(build(), { n: index });
    expect(countCompiledValidators() - before).toBe(1);
  });

  it('still reports a required argument sent as null as missing', () => {
    const error = argumentError(() => validateToolArguments(schema, { name: null }));
    expect(error.argument).toBe('name');
    expect(error.message).toBe('Missing required argument `name`.');
  });

  it('rejects a boolean sent as a string instead of substituting a default', () => {
    const error = argumentError(() => validateToolArguments(schema, { name: 'a', enabled: 'true' }));
    expect(error.code).toBe('validation_failed');
    expect(error.argument).toBe('enabled');
    expect(error.expected).toBe('boolean');
    expect(error.received).toBe('string "true"');
    expect(error.message).toBe('Invalid argument `enabled`: expected boolean, received string "true".');
  });

  it('rejects a path sent as a number', () => {
    const pathSchema: JsonSchema = {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    };
    const error = argumentError(() => validateToolArguments(pathSchema, { path: 42 }));
    expect(error.argument).toBe('path');
    expect(error.received).toBe('number 42');
  });

  it('names nested array items by path', () => {
    const error = argumentError(() => validateToolArguments(schema, { name: 'a', tags: ['ok', 5] }));
    expect(error.argument).toBe('tags[1]');
    expect(error.expected).toBe('string');
  });

  it('enforces bounds, enums and length limits the strict dialect drops', () => {
    expect(argumentError(() => validateToolArguments(schema, { name: 'a', count: 1001 })).argument).toBe(
      'count',
    );
    expect(argumentError(() => validateToolArguments(schema, { name: 'a', mode: 'medium' })).expected).toBe(
      'one of "fast", "slow"',
    );
    expect(argumentError(() => validateToolArguments(schema, { name: '' })).argument).toBe('name');
  });

  it('rejects an unknown argument and lists the accepted ones', () => {
    const error = argumentError(() => validateToolArguments(schema, { name: 'a', nmae: 'typo' }));
    expect(error.argument).toBe('nmae');
    expect(error.message).toContain('accepted arguments: name, count, enabled, tags, mode');
  });

  it('rejects non-object arguments', () => {
    expect(argumentError(() => validateToolArguments(schema, [1])).expected).toBe('a JSON object');
    expect(argumentError(() => validateToolArguments(schema, 'text')).received).toBe('string "text"');
  });

  it('treats absent arguments as {}', () => {
    const empty: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };
    expect(validateToolArguments(empty, undefined)).toEqual({});
  });
});

describe('CORE-5 parseToolArgumentsJson', () => {
  it('parses JSON text and reads empty text as {}', () => {
    expect(parseToolArgumentsJson('{"a":1}')).toEqual({ a: 1 });
    expect(parseToolArgumentsJson('')).toEqual({});
    expect(parseToolArgumentsJson('  ')).toEqual({});
  });

  it('rejects malformed JSON with a message the model can act on', () => {
    const error = argumentError(() => parseToolArgumentsJson('{"a":'));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toMatch(/not valid JSON .*Send the arguments as one JSON object/);
  });
});
