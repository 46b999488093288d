import type { JsonSchema } from '../../core/tool-types.ts';

/**
 * Gemini's function parameters are an OpenAPI 3.0 subset, not JSON Schema. Every keyword it rejects is converted or
 * removed here on purpose (issue 5 item 1), never by accident:
 * - `$ref` → the local definition inlined (`#/$defs/…`, `#/definitions/…`); a recursive reference is cut at the second
 *   visit to a free-form object with a note; `$defs`/`definitions` themselves are then removed;
 * - `type: [T, 'null']` → `type: T, nullable: true`; several non-null types → `anyOf` of one branch per type;
 * - `const: v` → `enum: [v]` for a string, otherwise the type of `v` plus a description note;
 * - a non-string `enum` → the values' type plus a description note listing them (Gemini enums are strings only);
 * - `oneOf` → `anyOf` (Gemini has no exclusive union); `allOf` → its branches merged into one schema;
 * - `required` naming a property that `properties` does not declare → that name removed;
 * - `$schema`, `$id`, `$comment`, `additionalProperties`, `propertyNames`, `patternProperties`,
 *   `unevaluatedProperties`, `not`, `examples`, `if`/`then`/`else`, `dependentRequired` → removed (the executor
 *   still validates against the source schema);
 * - `exclusiveMinimum`/`exclusiveMaximum` → `minimum`/`maximum` ± 1 for integers, otherwise a description note;
 * - `format` other than the ones Gemini knows (`date-time`, `enum`, `int32`, `int64`, `float`, `double`) → removed.
 * `minLength`/`maxLength`, `minItems`/`maxItems`, `minimum`/`maximum`, `pattern`, `title`, `default` stay.
 */

export type GeminiTypeCase = 'upper' | 'lower';

const KEPT_KEYWORDS = [
  'description',
  'title',
  'default',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minProperties',
  'maxProperties',
  'nullable',
] as const;
const KNOWN_FORMATS = ['date-time', 'enum', 'int32', 'int64', 'float', 'double'];
const MAX_REF_DEPTH = 2;

interface ConversionContext {
  root: JsonSchema;
  typeCase: GeminiTypeCase;
  /** How often each `$ref` is being expanded on the current path (recursion guard). */
  refStack: Map<string, number>;
}

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(type: string, typeCase: GeminiTypeCase): string {
  return typeCase === 'upper' ? type.toUpperCase() : type.toLowerCase();
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function appendDescription(schema: JsonSchema, note: string): void {
  schema.description =
    typeof schema.description === 'string' && schema.description !== ''
      ? `${schema.description} (${note})`
      : note;
}

function resolveRef(ref: string, root: JsonSchema): JsonSchema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return undefined;
  const table = root[match[1]!];
  if (!isSchemaObject(table)) return undefined;
  const target = table[decodeURIComponent(match[2]!).replaceAll('~1', '/').replaceAll('~0', '~')];
  return isSchemaObject(target) ? target : undefined;
}

function mergeAllOf(schema: JsonSchema): JsonSchema {
  const { allOf, ...rest } = schema;
  let merged: JsonSchema = { ...rest };
  for (const branch of allOf as unknown[]) {
    if (!isSchemaObject(branch)) continue;
    const properties = { ...(isSchemaObject(merged.properties) ? merged.properties : {}) };
    if (isSchemaObject(branch.properties)) Object.assign(properties, branch.properties);
    const required = [
      ...(Array.isArray(merged.required) ? (merged.required as unknown[]) : []),
      ...(Array.isArray(branch.required) ? (branch.required as unknown[]) : []),
    ];
    merged = { ...branch, ...merged };
    if (Object.keys(properties).length > 0) merged.properties = properties;
    if (required.length > 0) merged.required = [...new Set(required)];
  }
  return merged;
}

function convert(input: JsonSchema, context: ConversionContext): JsonSchema {
  let schema = input;
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    const depth = context.refStack.get(ref) ?? 0;
    const target = resolveRef(ref, context.root);
    const { $ref: _ref, ...siblings } = schema;
    if (target === undefined || depth >= MAX_REF_DEPTH) {
      const cut: JsonSchema = { type: typeName('object', context.typeCase) };
      const note =
        target === undefined
          ? `schema reference ${ref} could not be resolved`
          : `recursive structure (${ref})`;
      if (typeof siblings.description === 'string') cut.description = siblings.description;
      appendDescription(cut, note);
      return cut;
    }
    context.refStack.set(ref, depth + 1);
    try {
      return convert({ ...target, ...siblings }, context);
    } finally {
      context.refStack.set(ref, depth);
    }
  }
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema);

  const result: JsonSchema = {};
  for (const keyword of KEPT_KEYWORDS) if (keyword in schema) result[keyword] = schema[keyword];

  // type lists → one type + nullable, or anyOf of one branch per type
  let type: string | undefined;
  if (typeof schema.type === 'string') type = schema.type;
  else if (Array.isArray(schema.type)) {
    const types = (schema.type as unknown[]).filter((entry): entry is string => typeof entry === 'string');
    const nonNull = types.filter((entry) => entry !== 'null');
    if (types.includes('null')) result.nullable = true;
    if (nonNull.length === 1) type = nonNull[0];
    else if (nonNull.length > 1) {
      const { type: _type, nullable: _nullable, ...branchBase } = schema;
      result.anyOf = nonNull.map((entry) => convert({ ...branchBase, type: entry }, context));
      return result;
    }
  }

  if ('const' in schema) {
    const value = schema.const;
    if (typeof value === 'string') {
      result.enum = [value];
      type ??= 'string';
    } else {
      type ??= jsonTypeOf(value);
      appendDescription(result, `must be ${JSON.stringify(value)}`);
    }
  }
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as unknown[];
    const nonNull = values.filter((value) => value !== null);
    if (values.includes(null)) result.nullable = true;
    if (nonNull.every((value) => typeof value === 'string')) {
      result.enum = nonNull;
      type ??= 'string';
    } else {
      type ??= jsonTypeOf(nonNull[0]);
      appendDescription(result, `one of ${nonNull.map((value) => JSON.stringify(value)).join(', ')}`);
    }
  }
  if (type === 'null') {
    result.nullable = true;
    type = undefined;
  }

  if (typeof schema.format === 'string' && KNOWN_FORMATS.includes(schema.format))
    result.format = schema.format;
  for (const [keyword, bound, offset] of [
    ['exclusiveMinimum', 'minimum', 1],
    ['exclusiveMaximum', 'maximum', -1],
  ] as const) {
    const value = schema[keyword];
    if (typeof value !== 'number') continue;
    if (type === 'integer') result[bound] = value + offset;
    else appendDescription(result, `${keyword === 'exclusiveMinimum' ? 'greater' : 'less'} than ${value}`);
  }

  const unions = [schema.anyOf, schema.oneOf].filter(Array.isArray) as unknown[][];
  if (unions.length > 0) {
    const branches = unions.flat().filter(isSchemaObject);
    const nonNull = branches.filter((branch) => branch.type !== 'null');
    if (nonNull.length < branches.length) result.nullable = true;
    if (nonNull.length === 1) return { ...convert(nonNull[0]!, context), ...result };
    result.anyOf = nonNull.map((branch) => convert(branch, context));
  }

  if (isSchemaObject(schema.properties)) {
    type ??= 'object';
    const properties: JsonSchema = {};
    for (const [name, child] of Object.entries(schema.properties)) {
      if (isSchemaObject(child)) properties[name] = convert(child, context);
    }
    // Gemini rejects an OBJECT with an empty `properties`; a property-less object is sent without it.
    if (Object.keys(properties).length > 0) result.properties = properties;
    if (Array.isArray(schema.required)) {
      const required = (schema.required as unknown[]).filter(
        (name): name is string => typeof name === 'string' && name in properties,
      );
      if (required.length > 0) result.required = required;
    }
  }
  if (schema.items !== undefined) {
    type ??= 'array';
    if (isSchemaObject(schema.items)) result.items = convert(schema.items, context);
    else if (Array.isArray(schema.items) && isSchemaObject(schema.items[0]))
      result.items = convert(schema.items[0], context);
  } else if (Array.isArray(schema.prefixItems) && isSchemaObject(schema.prefixItems[0])) {
    type ??= 'array';
    result.items = convert(schema.prefixItems[0], context);
  }
  if (type === 'array' && result.items === undefined)
    result.items = { type: typeName('string', context.typeCase) };
  if (type !== undefined && result.anyOf === undefined) result.type = typeName(type, context.typeCase);
  return result;
}

/** Converts a plain JSON Schema into the dialect Gemini accepts (upper-case types for generateContent). */
export function toGeminiSchema(schema: JsonSchema, typeCase: GeminiTypeCase = 'upper'): JsonSchema {
  return convert(schema, { root: schema, typeCase, refStack: new Map() });
}
