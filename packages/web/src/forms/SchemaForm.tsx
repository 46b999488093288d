import { useId } from 'react';
import { FieldNotes } from './DescriptorForm';
import type { SchemaDraft, SchemaField } from './schema-fields';

export interface SchemaFormProps {
  fields: readonly SchemaField[];
  drafts: Readonly<Record<string, SchemaDraft>>;
  errors?: Readonly<Record<string, string>>;
  onChange: (name: string, draft: SchemaDraft) => void;
}

/** Inputs for a tool's arguments; each is labelled by its property name. */
export function SchemaForm({ fields, drafts, errors, onChange }: SchemaFormProps) {
  const formId = useId();
  if (fields.length === 0) return <p className="muted">This tool takes no arguments.</p>;
  return (
    <div className="schema-form">
      {fields.map((field) => {
        const id = `${formId}-${field.name}`;
        const draft = drafts[field.name] ?? '';
        const error = errors?.[field.name];
        const hint = [
          field.description,
          field.required ? 'required' : 'optional',
          field.kind === 'list' ? 'one per line' : '',
          field.kind === 'json' ? 'JSON' : '',
          field.minimum !== undefined ? `min ${field.minimum}` : '',
          field.maximum !== undefined ? `max ${field.maximum}` : '',
        ]
          .filter((part) => part !== '')
          .join(' · ');
        const common = {
          id,
          name: field.name,
          required: field.required,
          'aria-describedby': `${id}-hint${error === undefined ? '' : ` ${id}-error`}`,
          'aria-invalid': error === undefined ? undefined : true,
        } as const;
        let control;
        if (field.kind === 'boolean' && typeof draft === 'boolean') {
          control = (
            <input
              {...common}
              type="checkbox"
              checked={draft}
              onChange={(event) => onChange(field.name, event.target.checked)}
            />
          );
        } else if (field.kind === 'boolean' || field.kind === 'enum') {
          const options = field.kind === 'boolean' ? ['true', 'false'] : field.options;
          control = (
            <select
              {...common}
              value={String(draft)}
              onChange={(event) => onChange(field.name, event.target.value)}
            >
              <option value="">{field.required ? 'Choose…' : '(not set)'}</option>
              {options.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </select>
          );
        } else if (field.kind === 'list' || field.kind === 'json') {
          control = (
            <textarea
              {...common}
              rows={field.kind === 'json' ? 4 : 3}
              spellCheck={false}
              value={String(draft)}
              onChange={(event) => onChange(field.name, event.target.value)}
            />
          );
        } else {
          control = (
            <input
              {...common}
              type={field.kind === 'string' ? 'text' : 'number'}
              step={field.kind === 'integer' ? 1 : field.kind === 'number' ? 'any' : undefined}
              value={String(draft)}
              onChange={(event) => onChange(field.name, event.target.value)}
            />
          );
        }
        return (
          <div
            key={field.name}
            className={`field${field.kind === 'boolean' && typeof draft === 'boolean' ? ' field-boolean' : ''}${error === undefined ? '' : ' has-error'}`}
          >
            {field.kind === 'boolean' && typeof draft === 'boolean' ? control : null}
            <span className="label-row">
              <label htmlFor={id}>{field.name}</label>
              {field.required ? (
                <span className="required" aria-hidden="true">
                  *
                </span>
              ) : null}
            </span>
            {field.kind === 'boolean' && typeof draft === 'boolean' ? null : control}
            <FieldNotes hintId={`${id}-hint`} errorId={`${id}-error`} hint={hint} error={error} />
          </div>
        );
      })}
    </div>
  );
}
