import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, ErrorObject, Options, ValidateFunction } from 'ajv';
import { ToolArgumentError, describeReceivedValue } from './errors.ts';
import type { JsonSchema, ToolArguments } from './tool-types.ts';

/**
 * SPEC CORE-5. The one place model JSON is parsed and checked: malformed arguments are rejected, never substituted;
 * `null` reads as absent (strict-mode models send null where others omit the key); validation is against the tool's
 * JSON Schema, compiled once per schema object.
 */

/** The options every validator is compiled with (also by scripts/build-validators.mjs, at build time). */
export const AJV_OPTIONS: Options = {
  allErrors: false,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  validateFormats: false,
};
const require = createRequire(import.meta.url);
let ajv: AjvInstance | undefined;
/** Ajv loads on the first schema that needs compiling: a one-shot CLI call of a built-in never does (issue 11). */
function compiler(): AjvInstance {
  if (ajv === undefined) {
    const { Ajv } = require('ajv') as { Ajv: typeof AjvInstance };
    ajv = new Ajv(AJV_OPTIONS);
  }
  return ajv;
}

/**
 * The built-ins' validators as Ajv standalone code, generated into dist/ by scripts/build-validators.mjs and keyed by
 * schema text. Absent when running from src/ (then everything is compiled at run time, with the same options).
 */
function loadPrecompiledValidators(): ReadonlyMap<string, ValidateFunction> {
  try {
    return (
      require('./builtin-validators.js') as { VALIDATORS_BY_SCHEMA_TEXT: Map<string, ValidateFunction> }
    ).VALIDATORS_BY_SCHEMA_TEXT;
  } catch {
    return new Map();
  }
}
let precompiled: ReadonlyMap<string, ValidateFunction> | undefined;
// Fast path: the same schema object (a registered tool's definition) is looked up by identity.
const validatorsBySchemaObject = new WeakMap<JsonSchema, ValidateFunction>();
// Schemas rebuilt per call (buildDefinition, MCP listings) are equal but new objects: they share a validator by
// content, in a bounded map, and Ajv's own strong cache is emptied after each compile so nothing accumulates.
const validatorsBySchemaText = new Map<string, ValidateFunction>();
const MAX_VALIDATORS_BY_TEXT = 2_000;

function getValidator(schema: JsonSchema): ValidateFunction {
  let validate = validatorsBySchemaObject.get(schema);
  if (validate !== undefined) return validate;
  const text = JSON.stringify(schema);
  precompiled ??= loadPrecompiledValidators();
  validate = validatorsBySchemaText.get(text) ?? precompiled.get(text);
  if (validate === undefined) {
    validate = compiler().compile(schema);
    compiler().removeSchema(schema);
    if (validatorsBySchemaText.size >= MAX_VALIDATORS_BY_TEXT) validatorsBySchemaText.clear();
    validatorsBySchemaText.set(text, validate);
  }
  validatorsBySchemaObject.set(schema, validate);
  return validate;
}

/**
 * Compiles a schema's validator now (a loader checking a tool file: an invalid schema throws Ajv's error), so the
 * first call reuses it instead of compiling.
 */
export function precompileToolArgumentsSchema(schema: JsonSchema): void {
  getValidator(schema);
}

/** Validators compiled by content so far (diagnostics and tests: equal schemas must share one). */
export function countCompiledValidators(): number {
  return validatorsBySchemaText.size;
}

/** Parses a model's raw argument text. Empty text means `{}` (providers send "" for no-argument calls). */
export function parseToolArgumentsJson(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolArgumentError(
      '(arguments)',
      'a JSON object',
      describeReceivedValue(text),
      `The arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}). ` +
        'Send the arguments as one JSON object.',
    );
  }
}

function schemaAllowsNull(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, enum: enumValues, const: constValue, anyOf, oneOf } = schema as Record<string, unknown>;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(enumValues) && enumValues.includes(null)) return true;
  // A reference or an intersection may allow null where this level cannot see it: keep the null, let Ajv decide.
  if ('$ref' in schema || 'allOf' in schema) return true;
  if (constValue === null) return true;
  for (const branches of [anyOf, oneOf]) {
    if (Array.isArray(branches) && branches.some((branch) => schemaAllowsNull(branch))) return true;
  }
  return false;
}

/** Removes `null` from object properties whose schema does not itself accept null, at every nesting level. */
function stripNullsAsAbsent(value: unknown, schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || typeof value !== 'object' || value === null)
    return value;
  if (Array.isArray(value)) {
    const itemSchema = (schema as Record<string, unknown>).items;
    if (typeof itemSchema !== 'object' || itemSchema === null) return value;
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const stripped = stripNullsAsAbsent(value[index], itemSchema);
      if (stripped !== value[index]) (copy ??= [...value])[index] = stripped;
    }
    return copy ?? value;
  }
  const properties = (schema as Record<string, unknown>).properties as Record<string, unknown> | undefined;
  // Without properties at this level (composition via $ref/anyOf/oneOf), nulls cannot be judged here: Ajv decides.
  if (properties === undefined) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  // for-in over own enumerable keys: this runs on every call, so it avoids Object.entries' allocations.
  for (const key in record) {
    const propertyValue = record[key];
    if (typeof propertyValue !== 'object') continue;
    const propertySchema = properties?.[key];
    if (propertyValue === null) {
      if (!schemaAllowsNull(propertySchema)) {
        copy ??= { ...record };
        delete copy[key];
      }
    } else if (propertySchema !== undefined) {
      const stripped = stripNullsAsAbsent(propertyValue, propertySchema);
      if (stripped !== propertyValue) (copy ??= { ...record })[key] = stripped;
    }
  }
  return copy ?? value;
}

function argumentPath(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  let path = '';
  for (const segment of segments)
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  return path === '' ? '(arguments)' : path;
}

function valueAt(root: unknown, instancePath: string): unknown {
  let current = root;
  for (const segment of instancePath.split('/').slice(1)) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return current;
}

function describeExpectation(error: ErrorObject, schema: JsonSchema): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
    case 'enum':
      return `one of ${(params.allowedValues as unknown[]).map((entry) => JSON.stringify(entry)).join(', ')}`;
    case 'required':
      return 'a value (it is required)';
    case 'additionalProperties': {
      const known = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
      return `no such argument; accepted arguments: ${known.join(', ') || '(none)'}`;
    }
    default:
      return error.message ?? error.keyword;
  }
}

function toArgumentError(error: ErrorObject, args: unknown, schema: JsonSchema): ToolArgumentError {
  const argument = argumentPath(error);
  const expected = describeExpectation(error, schema);
  if (error.keyword === 'required') {
    return new ToolArgumentError(argument, expected, 'nothing', `Missing required argument \`${argument}\`.`);
  }
  if (error.keyword === 'additionalProperties') {
    return new ToolArgumentError(
      argument,
      expected,
      'an unknown argument',
      `Unknown argument \`${argument}\`: ${expected}.`,
    );
  }
  const received = describeReceivedValue(valueAt(args, error.instancePath));
  return new ToolArgumentError(argument, expected, received);
}

/**
 * Validates (already parsed) arguments against a schema. Returns the arguments with nulls removed; throws
 * ToolArgumentError (`validation_failed`) naming the argument, the expectation and what came.
 */
export function validateToolArguments(schema: JsonSchema, rawArguments: unknown): ToolArguments {
  const args = rawArguments === undefined || rawArguments === null ? {} : rawArguments;
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolArgumentError('(arguments)', 'a JSON object', describeReceivedValue(args));
  }
  const cleaned = stripNullsAsAbsent(args, schema) as ToolArguments;
  const validate = getValidator(schema);
  if (!validate(cleaned)) {
    const first = validate.errors?.[0];
    if (first === undefined)
      throw new ToolArgumentError('(arguments)', 'valid arguments', 'invalid arguments');
    throw toArgumentError(first, cleaned, schema);
  }
  return cleaned;
}
