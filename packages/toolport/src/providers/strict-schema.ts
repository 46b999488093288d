import type { JsonSchema } from '../core/tool-types.ts';

/**
 * SPEC PROV-2. Source schemas stay plain JSON Schema; the OpenAI strict dialect is derived here, at the boundary.
 * `toStrictSchema`: every property required at every nesting level, formerly optional ones nullable
 * (`type: ['integer','null']`), length limits dropped (the executor still enforces them against the source schema),
 * `minimum`/`maximum`, `enum`, `pattern`, `minItems`/`maxItems` kept. Core's validator reads the nulls strict mode
 * forces as absent (CORE-5), so the tool sees the same arguments either way.
 */

/** Keywords strict mode rejects that carry no meaning the model needs: dropped by the derivation. */
const DROPPED_KEYWORDS = ['minLength', 'maxLength', 'default', '$schema'] as const;
/** Keywords that make a schema ineligible for strict mode (PROV-2). */
const FORBIDDEN_KEYWORDS = ['oneOf', 'anyOf', 'allOf', 'not', '$ref', 'minLength', 'maxLength'] as const;
/** Keywords whose values are schemas, or maps/lists of schemas, walked recursively. */
const SCHEMA_MAP_KEYWORDS = ['properties', '$defs', 'definitions', 'patternProperties'] as const;
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SCHEMA_KEYWORDS = ['items', 'not', 'additionalProperties', 'contains'] as const;

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Makes an optional property's schema accept null, the strict-mode spelling of "absent". */
function makeNullable(schema: JsonSchema): JsonSchema {
  const { type } = schema;
  if (typeof type === 'string') {
    const nullable: JsonSchema = { ...schema, type: type === 'null' ? 'null' : [type, 'null'] };
    return withNullInEnum(nullable);
  }
  if (Array.isArray(type)) {
    return withNullInEnum(type.includes('null') ? schema : { ...schema, type: [...type, 'null'] });
  }
  // No single type (anyOf, $ref, const …): a union with null. Not strict-compatible, and reported as such.
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as unknown[];
    const hasNull = branches.some((branch) => isSchemaObject(branch) && branch.type === 'null');
    return hasNull ? schema : { ...schema, anyOf: [...branches, { type: 'null' }] };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function withNullInEnum(schema: JsonSchema): JsonSchema {
  const values = schema.enum;
  if (!Array.isArray(values) || values.includes(null)) return schema;
  return { ...schema, enum: [...values, null] };
}

/** Derives the Responses strict dialect from a plain JSON Schema, recursively. Pure: the input is not modified. */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  const derived: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if ((DROPPED_KEYWORDS as readonly string[]).includes(keyword)) continue;
    if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(keyword) && isSchemaObject(value)) {
      const mapped: JsonSchema = {};
      for (const [name, child] of Object.entries(value))
        mapped[name] = isSchemaObject(child) ? toStrictSchema(child) : child;
      derived[keyword] = mapped;
    } else if ((SCHEMA_LIST_KEYWORDS as readonly string[]).includes(keyword) && Array.isArray(value)) {
      derived[keyword] = value.map((child: unknown) =>
        isSchemaObject(child) ? toStrictSchema(child) : child,
      );
    } else if ((SCHEMA_KEYWORDS as readonly string[]).includes(keyword) && isSchemaObject(value)) {
      derived[keyword] = toStrictSchema(value);
    } else {
      derived[keyword] = value;
    }
  }
  const properties = derived.properties;
  if (isSchemaObject(properties)) {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
    const names = Object.keys(properties);
    for (const name of names) {
      const child = properties[name];
      if (!required.has(name) && isSchemaObject(child)) properties[name] = makeNullable(child);
    }
    derived.required = names;
    // A declared-properties object without the keyword is closed in strict mode (as OpenAI's own helpers do);
    // an explicit `true` or a schema means a free-form map and stays, which makes the tool non-strict.
    if (!('additionalProperties' in derived)) derived.additionalProperties = false;
  }
  return derived;
}

function describePath(path: string): string {
  return path === '' ? 'the root schema' : `\`${path}\``;
}

const UNION_KEYWORDS = ['oneOf', 'anyOf', 'allOf', 'not', '$ref'] as const;

/** With `onlyKeywords`, reports forbidden keywords only (used on the source schema to name what its author wrote). */
function findIncompatibility(
  schema: unknown,
  path: string,
  onlyKeywords?: readonly string[],
): string | undefined {
  if (!isSchemaObject(schema)) return undefined;
  for (const keyword of onlyKeywords ?? FORBIDDEN_KEYWORDS) {
    if (keyword in schema)
      return `${describePath(path)} uses \`${keyword}\`, which strict mode does not allow`;
  }
  if (onlyKeywords !== undefined) return findInChildren(schema, path, onlyKeywords);
  const { type } = schema;
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object'));
  if (isObject || 'properties' in schema) {
    if (schema.additionalProperties !== false) {
      return `${describePath(path)} is an object without \`additionalProperties: false\``;
    }
    const properties = isSchemaObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    for (const name of Object.keys(properties)) {
      if (!required.includes(name)) {
        return `property \`${path === '' ? name : `${path}.${name}`}\` is not in \`required\``;
      }
    }
  }
  return findInChildren(schema, path, undefined);
}

function findInChildren(
  schema: JsonSchema,
  path: string,
  onlyKeywords: readonly string[] | undefined,
): string | undefined {
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const children = schema[keyword];
    if (!isSchemaObject(children)) continue;
    for (const [name, child] of Object.entries(children)) {
      const childPath =
        keyword === 'properties' ? (path === '' ? name : `${path}.${name}`) : `${path}/${keyword}/${name}`;
      const reason = findIncompatibility(child, childPath, onlyKeywords);
      if (reason !== undefined) return reason;
    }
  }
  for (const keyword of ['items', 'contains'] as const) {
    const reason = findIncompatibility(schema[keyword], `${path}[]`, onlyKeywords);
    if (reason !== undefined) return reason;
  }
  if (Array.isArray(schema.prefixItems)) {
    for (const [index, child] of (schema.prefixItems as unknown[]).entries()) {
      const reason = findIncompatibility(child, `${path}[${index}]`, onlyKeywords);
      if (reason !== undefined) return reason;
    }
  }
  return undefined;
}

/**
 * Why `schema` cannot be sent with `strict: true`, or undefined when it can. The root must be `type: object`;
 * every object at every level needs `additionalProperties: false` and every property required; `oneOf`, `anyOf`,
 * `allOf`, `not`, `$ref`, `minLength` and `maxLength` are not allowed anywhere.
 */
export function explainStrictIncompatibility(schema: JsonSchema): string | undefined {
  if (schema.type !== 'object') return 'the root schema is not `type: "object"`';
  return findIncompatibility(schema, '');
}

/** SPEC PROV-2: true when `schema` (already derived with `toStrictSchema`) can be sent with `strict: true`. */
export function isStrictCompatible(schema: JsonSchema): boolean {
  return explainStrictIncompatibility(schema) === undefined;
}

export interface StrictDerivation {
  /** What is sent: the strict dialect when compatible, else the source schema unchanged. */
  parameters: JsonSchema;
  strict: boolean;
  /** Why the tool is sent non-strict (logs, capability inspector). */
  nonStrictReason?: string;
}

/** Derives and checks in one step: a schema that cannot be made strict is sent as it is with `strict: false`. */
export function deriveStrictParameters(schema: JsonSchema): StrictDerivation {
  const derived = toStrictSchema(schema);
  let reason = explainStrictIncompatibility(derived);
  // Name the union keyword the author wrote (`oneOf`), not the `anyOf` that made an optional key nullable.
  if (reason !== undefined) reason = findIncompatibility(schema, '', UNION_KEYWORDS) ?? reason;
  return reason === undefined
    ? { parameters: derived, strict: true }
    : { parameters: schema, strict: false, nonStrictReason: reason };
}
