import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SchemaForm } from '../../src/forms/SchemaForm';
import { argumentsOf, schemaDraftsOf, schemaFieldsOf } from '../../src/forms/schema-fields';

const schema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Where' },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    ratio: { type: ['number', 'null'] },
    recursive: { type: 'boolean' },
    force: { type: 'boolean' },
    mode: { type: 'string', enum: ['fast', 'slow'] },
    globs: { type: 'array', items: { type: 'string' } },
    sizes: { type: 'array', items: { type: 'integer' } },
    options: { type: 'object', properties: { deep: { type: 'boolean' } } },
    either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
  },
  required: ['path', 'force'],
  additionalProperties: false,
};

describe('UI-1 schema-to-form renderer (tool arguments from JSON Schema)', () => {
  it('gives each property a field kind, JSON for shapes an input cannot hold', () => {
    expect(schemaFieldsOf(schema).map((field) => [field.name, field.kind, field.required])).toEqual([
      ['path', 'string', true],
      ['limit', 'integer', false],
      ['ratio', 'number', false],
      ['recursive', 'boolean', false],
      ['force', 'boolean', true],
      ['mode', 'enum', false],
      ['globs', 'list', false],
      ['sizes', 'list', false],
      ['options', 'json', false],
      ['either', 'json', false],
    ]);
    expect(schemaFieldsOf({ type: 'object' })).toEqual([]);
    expect(schemaFieldsOf(undefined)).toEqual([]);
  });

  it('labels every field by its property name exactly and marks required ones', () => {
    const fields = schemaFieldsOf(schema);
    const html = renderToStaticMarkup(
      <SchemaForm fields={fields} drafts={schemaDraftsOf(fields, {})} onChange={() => {}} />,
    );
    const document = new DOMParser().parseFromString(html, 'text/html');
    for (const field of fields) {
      const control = document.querySelector(`[name="${field.name}"]`)!;
      expect(document.querySelector(`label[for="${control.id}"]`)?.textContent).toBe(field.name);
      expect(control.hasAttribute('required')).toBe(field.required);
    }
    expect(document.querySelector<HTMLInputElement>('[name="force"]')!.type).toBe('checkbox');
    expect(document.querySelector('select[name="recursive"]')).not.toBeNull();
    expect(
      [...document.querySelectorAll('select[name="mode"] option')].map((option) =>
        option.getAttribute('value'),
      ),
    ).toEqual(['', 'fast', 'slow']);
    expect(document.querySelector('textarea[name="options"]')).not.toBeNull();
  });

  it('builds the arguments object: typed values, empty optional fields left out', () => {
    const fields = schemaFieldsOf(schema);
    const drafts = {
      ...schemaDraftsOf(fields, {}),
      path: 'src',
      limit: '5',
      recursive: 'false',
      force: true,
      globs: '*.ts\n\n*.md',
      sizes: '1\n2',
      options: '{"deep": true}',
    };
    expect(argumentsOf(fields, drafts)).toEqual({
      args: {
        path: 'src',
        limit: 5,
        recursive: false,
        force: true,
        globs: ['*.ts', '*.md'],
        sizes: [1, 2],
        options: { deep: true },
      },
      errors: {},
    });
    expect(argumentsOf(fields, { ...drafts, options: '{nope', limit: 'x' }).errors).toEqual({
      limit: 'limit must be a number.',
      options: 'options must be JSON.',
    });
  });

  it('round-trips an arguments object through the drafts (the raw JSON tab and the form agree)', () => {
    const fields = schemaFieldsOf(schema);
    const args = {
      path: 'a',
      limit: 3,
      recursive: true,
      force: false,
      mode: 'slow',
      globs: ['x'],
      options: { deep: false },
      either: 7,
    };
    expect(argumentsOf(fields, schemaDraftsOf(fields, args)).args).toEqual(args);
  });
});
