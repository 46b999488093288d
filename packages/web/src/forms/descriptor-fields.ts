import type { ParameterDescriptor } from '../api/types';

/**
 * The settings form model, from a tool's `parameterDescriptors` alone (no tool-specific code): one field per
 * descriptor, a text or boolean draft per field, and the conversion back to the values the API takes.
 */
export type SettingFieldKind = 'integer' | 'number' | 'boolean' | 'enum' | 'string' | 'list';

export interface SettingField {
  name: string;
  title: string;
  description: string;
  kind: SettingFieldKind;
  /** `path[]` or `string[]`, for lists; the descriptor's type otherwise. */
  declaredType: string;
  minimum?: number;
  maximum?: number;
  unit?: string;
  options: string[];
  defaultValue: unknown;
}

export type Draft = string | boolean;

export function settingFieldsOf(descriptors: readonly ParameterDescriptor[]): SettingField[] {
  return descriptors.map((descriptor) => ({
    name: descriptor.name,
    title: descriptor.title,
    description: descriptor.description,
    kind: kindOf(descriptor),
    declaredType: descriptor.type,
    ...(descriptor.minimum === undefined ? {} : { minimum: descriptor.minimum }),
    ...(descriptor.maximum === undefined ? {} : { maximum: descriptor.maximum }),
    ...(descriptor.unit === undefined ? {} : { unit: descriptor.unit }),
    options: descriptor.allowedValues ?? [],
    defaultValue: descriptor.default,
  }));
}

function kindOf(descriptor: ParameterDescriptor): SettingFieldKind {
  switch (descriptor.type) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'string':
      return descriptor.type;
    case 'enum':
      return 'enum';
    default:
      // string[], path[] and any list type added later: one entry per line.
      if (descriptor.type.endsWith('[]')) return 'list';
      return descriptor.allowedValues !== undefined ? 'enum' : 'string';
  }
}

/** What the input shows for a value. */
export function draftOf(field: SettingField, value: unknown): Draft {
  if (field.kind === 'boolean') return value === true;
  if (field.kind === 'list') return Array.isArray(value) ? value.map(String).join('\n') : '';
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The API value for a draft. Bounds are deliberately not checked here: the server is the one judge, and its 422
 * names the parameter, which the form shows at the field. Only text that is not a number at all is refused.
 */
export function valueOf(field: SettingField, draft: Draft): { value: unknown } | { error: string } {
  if (field.kind === 'boolean') return { value: draft === true };
  const text = String(draft);
  switch (field.kind) {
    case 'integer':
    case 'number': {
      if (text.trim() === '') return { value: null };
      const number = Number(text);
      if (!Number.isFinite(number)) return { error: `${field.title} must be a number.` };
      return { value: number };
    }
    case 'list':
      return {
        value: text
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== ''),
      };
    default:
      return { value: text };
  }
}

/** The parameters whose draft differs from the effective value: what a save sends. */
export function changedParameters(
  fields: readonly SettingField[],
  drafts: Readonly<Record<string, Draft>>,
  current: Readonly<Record<string, unknown>>,
): { parameters: Record<string, unknown>; errors: Record<string, string> } {
  const parameters: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const draft = drafts[field.name];
    if (draft === undefined || draft === draftOf(field, current[field.name])) continue;
    const converted = valueOf(field, draft);
    if ('error' in converted) errors[field.name] = converted.error;
    else parameters[field.name] = converted.value;
  }
  return { parameters, errors };
}

/** The hint under a field: bounds, unit and default, in words. */
export function fieldHint(field: SettingField): string {
  const parts: string[] = [];
  if (field.minimum !== undefined && field.maximum !== undefined)
    parts.push(`${field.minimum}–${field.maximum}`);
  else if (field.minimum !== undefined) parts.push(`at least ${field.minimum}`);
  else if (field.maximum !== undefined) parts.push(`at most ${field.maximum}`);
  if (field.unit !== undefined) parts.push(field.unit);
  if (field.kind === 'list')
    parts.push(field.declaredType === 'path[]' ? 'one path per line' : 'one per line');
  const fallback = draftOf(field, field.defaultValue);
  parts.push(`default ${fallback === '' ? 'empty' : String(fallback).replace(/\n/g, ', ')}`);
  return parts.join(' · ');
}
