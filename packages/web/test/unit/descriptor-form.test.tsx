import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ParameterDescriptor } from '../../src/api/types';
import { DescriptorForm } from '../../src/forms/DescriptorForm';
import { changedParameters, draftOf, settingFieldsOf, valueOf } from '../../src/forms/descriptor-fields';

const descriptors: ParameterDescriptor[] = [
  {
    name: 'maxResults',
    title: 'Max results',
    type: 'integer',
    description: 'Cap',
    default: 10,
    minimum: 1,
    maximum: 100,
  },
  {
    name: 'ratio',
    title: 'Ratio',
    type: 'number',
    description: 'Share',
    default: 0.5,
    minimum: 0,
    maximum: 1,
  },
  { name: 'verbose', title: 'Verbose', type: 'boolean', description: 'Talk more', default: false },
  { name: 'greeting', title: 'Greeting', type: 'string', description: 'Said first', default: 'hi' },
  {
    name: 'speed',
    title: 'Speed',
    type: 'enum',
    description: 'How',
    default: 'fast',
    allowedValues: ['fast', 'slow'],
  },
  { name: 'allowedPaths', title: 'Allowed paths', type: 'path[]', description: 'Roots', default: [] },
  { name: 'extensions', title: 'Extensions', type: 'string[]', description: 'Kinds', default: ['ts'] },
];
const values = {
  maxResults: 20,
  ratio: 0.5,
  verbose: true,
  greeting: 'hello',
  speed: 'slow',
  allowedPaths: ['/a', '/b'],
  extensions: ['ts'],
};

function render(errors: Record<string, string> = {}): Document {
  const html = renderToStaticMarkup(
    <DescriptorForm
      label="demo"
      descriptors={descriptors}
      values={values}
      errors={errors}
      onSave={() => {}}
      onReset={() => {}}
    />,
  );
  return new DOMParser().parseFromString(html, 'text/html');
}

/** The text of the label that names a control. */
function labelOf(document: Document, control: Element): string {
  return document.querySelector(`label[for="${control.id}"]`)?.textContent ?? '';
}

describe('UI-1 descriptor-to-form renderer (settings from parameterDescriptors alone)', () => {
  it('maps every descriptor type to a field kind', () => {
    expect(settingFieldsOf(descriptors).map((field) => [field.name, field.kind])).toEqual([
      ['maxResults', 'integer'],
      ['ratio', 'number'],
      ['verbose', 'boolean'],
      ['greeting', 'string'],
      ['speed', 'enum'],
      ['allowedPaths', 'list'],
      ['extensions', 'list'],
    ]);
  });

  it('renders one labelled control per descriptor: the title shown, the parameter name in the accessible name', () => {
    const document = render();
    for (const descriptor of descriptors) {
      const control = document.querySelector(`[name="${descriptor.name}"]`);
      expect(control, descriptor.name).not.toBeNull();
      const label = labelOf(document, control!);
      expect(label).toContain(descriptor.title);
      expect(label).toContain(descriptor.name);
    }
  });

  it('renders bounds, booleans, enums and lists with the effective values', () => {
    const document = render();
    const integer = document.querySelector<HTMLInputElement>('[name="maxResults"]')!;
    expect([integer.type, integer.min, integer.max, integer.step, integer.value]).toEqual([
      'number',
      '1',
      '100',
      '1',
      '20',
    ]);
    const number = document.querySelector<HTMLInputElement>('[name="ratio"]')!;
    expect([number.type, number.min, number.max, number.step]).toEqual(['number', '0', '1', 'any']);
    const boolean = document.querySelector<HTMLInputElement>('[name="verbose"]')!;
    expect([boolean.type, boolean.checked]).toEqual(['checkbox', true]);
    const select = document.querySelector<HTMLSelectElement>('[name="speed"]')!;
    expect([...select.options].map((option) => option.value)).toEqual(['fast', 'slow']);
    expect(select.querySelector('option[selected]')?.getAttribute('value')).toBe('slow');
    expect(document.querySelector('textarea[name="allowedPaths"]')?.textContent).toBe('/a\n/b');
    expect(document.querySelector<HTMLInputElement>('[name="greeting"]')!.value).toBe('hello');
    expect(document.body.textContent).toContain('1–100');
    expect(document.body.textContent).toContain('one path per line');
    expect([...document.querySelectorAll('button')].map((button) => button.textContent)).toEqual([
      'Save settings',
      'Reset to defaults',
    ]);
  });

  it('shows an API error at the field it names, as an alert the input is described by', () => {
    const document = render({ maxResults: 'maxResults must be at most 100' });
    const input = document.querySelector('[name="maxResults"]')!;
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const alert = document.querySelector('[role="alert"]')!;
    expect(alert.textContent).toBe('maxResults must be at most 100');
    expect(input.getAttribute('aria-describedby')!.split(' ')).toContain(alert.id);
    expect(input.closest('.field')!.contains(alert)).toBe(true);
    expect(document.querySelectorAll('[aria-invalid="true"]')).toHaveLength(1);
  });

  it('sends only changed values, converted to the API types, and leaves bounds to the server', () => {
    const fields = settingFieldsOf(descriptors);
    const drafts = Object.fromEntries(
      fields.map((field) => [field.name, draftOf(field, values[field.name as keyof typeof values])]),
    );
    expect(changedParameters(fields, drafts, values)).toEqual({ parameters: {}, errors: {} });
    const edited = {
      ...drafts,
      maxResults: '1000',
      verbose: false,
      allowedPaths: '/a\n\n /c \n',
      speed: 'fast',
    };
    expect(changedParameters(fields, edited, values)).toEqual({
      parameters: { maxResults: 1000, verbose: false, allowedPaths: ['/a', '/c'], speed: 'fast' },
      errors: {},
    });
    expect(changedParameters(fields, { ...drafts, ratio: 'abc' }, values).errors).toEqual({
      ratio: 'Ratio must be a number.',
    });
    expect(valueOf(fields[0]!, '')).toEqual({ value: null });
  });
});
