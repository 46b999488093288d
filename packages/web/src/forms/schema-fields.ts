/**
 * A tool's arguments form from its JSON Schema: one field per top-level property, labelled by the property name.
 * Shapes a plain input cannot hold (objects, unions, arrays of objects) get a JSON text field.
 */
export type SchemaFieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'list' | 'json';

export interface SchemaField {
  name: string;
  kind: SchemaFieldKind;
  required: boolean;
  description: string;
  options: string[];
  /** For lists: the item kind. */
  itemKind?: 'string' | 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  defaultValue?: unknown;
}

export type SchemaDraft = string | boolean;

type JsonSchema = Record<string, unknown>;

function asSchema(value: unknown): JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonSchema) : {};
}

/** `type: ['string', 'null']` reads as string: null is what leaving a field empty sends anyway (it is left out). */
function singleType(schema: JsonSchema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const rest = type.filter((item) => item !== 'null');
    return rest.length === 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
  }
  return undefined;
}

function fieldOf(name: string, schema: JsonSchema, required: boolean): SchemaField {
  const base = {
    name,
    required,
    description: typeof schema.description === 'string' ? schema.description : '',
    options: [] as string[],
    ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
    ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
    ...('default' in schema ? { defaultValue: schema.default } : {}),
  };
  if (Array.isArray(schema.enum) && schema.enum.every((item) => typeof item === 'string'))
    return { ...base, kind: 'enum', options: schema.enum as string[] };
  const type = singleType(schema);
  switch (type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { ...base, kind: type };
    case 'array': {
      const itemType = singleType(asSchema(schema.items));
      if (itemType === 'string' || itemType === 'number' || itemType === 'integer')
        return { ...base, kind: 'list', itemKind: itemType };
      return { ...base, kind: 'json' };
    }
    default:
      return { ...base, kind: 'json' };
  }
}

export function schemaFieldsOf(schema: unknown): SchemaField[] {
  const root = asSchema(schema);
  const properties = asSchema(root.properties);
  const required = new Set(
    Array.isArray(root.required) ? root.required.filter((item) => typeof item === 'string') : [],
  );
  return Object.entries(properties).map(([name, property]) =>
    fieldOf(name, asSchema(property), required.has(name)),
  );
}

export function schemaDraftOf(field: SchemaField, value: unknown): SchemaDraft {
  if (field.kind === 'boolean') {
    if (field.required) return value === true;
    return value === true ? 'true' : value === false ? 'false' : '';
  }
  if (value === undefined || value === null) return '';
  if (field.kind === 'list') return Array.isArray(value) ? value.map(String).join('\n') : '';
  if (field.kind === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

/** Drafts for an arguments object (the raw JSON tab hands its object to the form this way). */
export function schemaDraftsOf(
  fields: readonly SchemaField[],
  args: Record<string, unknown>,
): Record<string, SchemaDraft> {
  return Object.fromEntries(fields.map((field) => [field.name, schemaDraftOf(field, args[field.name])]));
}

/**
 * The arguments object. Empty optional fields are left out; types are converted as the schema says, and anything
 * else (a missing required field, a bound) is left to the server, whose validation error the page shows.
 */
export function argumentsOf(
  fields: readonly SchemaField[],
  drafts: Readonly<Record<string, SchemaDraft>>,
): { args: Record<string, unknown>; errors: Record<string, string> } {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const draft = drafts[field.name] ?? schemaDraftOf(field, undefined);
    if (field.kind === 'boolean') {
      if (typeof draft === 'boolean') args[field.name] = draft;
      else if (draft !== '') args[field.name] = draft === 'true';
      continue;
    }
    const text = String(draft);
    if (text.trim() === '' && field.kind !== 'string') continue;
    if (text === '' && field.kind === 'string') continue;
    switch (field.kind) {
      case 'integer':
      case 'number': {
        const number = Number(text);
        if (Number.isFinite(number)) args[field.name] = number;
        else errors[field.name] = `${field.name} must be a number.`;
        break;
      }
      case 'list': {
        const items = text
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '');
        args[field.name] = field.itemKind === 'string' ? items : items.map(Number);
        break;
      }
      case 'json':
        try {
          args[field.name] = JSON.parse(text) as unknown;
        } catch {
          errors[field.name] = `${field.name} must be JSON.`;
        }
        break;
      default:
        args[field.name] = text;
    }
  }
  return { args, errors };
}
