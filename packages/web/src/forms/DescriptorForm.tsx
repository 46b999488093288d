import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import type { ParameterDescriptor } from '../api/types';
import {
  changedParameters,
  draftOf,
  fieldHint,
  settingFieldsOf,
  type Draft,
  type SettingField,
} from './descriptor-fields';

export interface DescriptorFormProps {
  /** Names the form for assistive technology, e.g. the tool name. */
  label: string;
  descriptors: readonly ParameterDescriptor[];
  values: Readonly<Record<string, unknown>>;
  /** Errors by parameter name (the API's 422 names one), shown at the field. */
  errors?: Readonly<Record<string, string>>;
  busy?: boolean;
  onSave: (parameters: Record<string, unknown>) => void;
  onReset?: () => void;
}

/** A settings form rendered from parameter descriptors alone. */
export function DescriptorForm(props: DescriptorFormProps) {
  const fields = useMemo(() => settingFieldsOf(props.descriptors), [props.descriptors]);
  const initial = useMemo(
    () => Object.fromEntries(fields.map((field) => [field.name, draftOf(field, props.values[field.name])])),
    [fields, props.values],
  );
  const [drafts, setDrafts] = useState<Record<string, Draft>>(initial);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  useEffect(() => setDrafts(initial), [initial]);
  const formId = useId();

  if (fields.length === 0) return <p className="muted">No settings.</p>;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { parameters, errors } = changedParameters(fields, drafts, props.values);
    setLocalErrors(errors);
    if (Object.keys(errors).length === 0) props.onSave(parameters);
  };

  return (
    <form className="settings-form" aria-label={`Settings of ${props.label}`} noValidate onSubmit={submit}>
      {fields.map((field) => (
        <SettingInput
          key={field.name}
          id={`${formId}-${field.name}`}
          field={field}
          draft={drafts[field.name] ?? draftOf(field, undefined)}
          error={localErrors[field.name] ?? props.errors?.[field.name]}
          onChange={(draft) => setDrafts((current) => ({ ...current, [field.name]: draft }))}
        />
      ))}
      <div className="actions">
        <button type="submit" disabled={props.busy}>
          Save settings
        </button>
        {props.onReset === undefined ? null : (
          <button type="button" className="secondary" disabled={props.busy} onClick={props.onReset}>
            Reset to defaults
          </button>
        )}
      </div>
    </form>
  );
}

interface SettingInputProps {
  id: string;
  field: SettingField;
  draft: Draft;
  error: string | undefined;
  onChange: (draft: Draft) => void;
}

/** One field: the label shows the descriptor's title and carries the parameter name in its accessible name. */
export function SettingInput({ id, field, draft, error, onChange }: SettingInputProps) {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = error === undefined ? hintId : `${errorId} ${hintId}`;
  const common = {
    id,
    name: field.name,
    'aria-describedby': describedBy,
    'aria-invalid': error === undefined ? undefined : true,
  } as const;
  const label = (
    <label htmlFor={id}>
      {field.title} <code className="param-name">({field.name})</code>
    </label>
  );

  const notes = (
    <FieldNotes
      hintId={hintId}
      errorId={errorId}
      hint={`${field.description} · ${fieldHint(field)}`}
      error={error}
    />
  );
  let control;
  switch (field.kind) {
    case 'boolean':
      return (
        <div className={`field field-boolean${error === undefined ? '' : ' has-error'}`}>
          <input
            {...common}
            type="checkbox"
            checked={draft === true}
            onChange={(event) => onChange(event.target.checked)}
          />
          {label}
          {notes}
        </div>
      );
    case 'integer':
    case 'number':
      control = (
        <input
          {...common}
          type="number"
          inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'}
          step={field.kind === 'integer' ? 1 : 'any'}
          min={field.minimum}
          max={field.maximum}
          value={String(draft)}
          onChange={(event) => onChange(event.target.value)}
        />
      );
      break;
    case 'enum':
      control = (
        <select {...common} value={String(draft)} onChange={(event) => onChange(event.target.value)}>
          {field.options.includes(String(draft)) ? null : (
            <option value={String(draft)}>{String(draft)}</option>
          )}
          {field.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
      break;
    case 'list':
      control = (
        <textarea
          {...common}
          rows={3}
          value={String(draft)}
          onChange={(event) => onChange(event.target.value)}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          type="text"
          value={String(draft)}
          onChange={(event) => onChange(event.target.value)}
        />
      );
  }
  return (
    <div className={`field${error === undefined ? '' : ' has-error'}`}>
      {label}
      {control}
      {notes}
    </div>
  );
}

export function FieldNotes(props: {
  hintId: string;
  errorId: string;
  hint: string;
  error: string | undefined;
}) {
  return (
    <>
      {props.error === undefined ? null : (
        <p className="field-error" id={props.errorId} role="alert">
          {props.error}
        </p>
      )}
      <p className="hint" id={props.hintId}>
        {props.hint}
      </p>
    </>
  );
}
