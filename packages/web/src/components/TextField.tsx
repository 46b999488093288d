import { useId, type InputHTMLAttributes } from 'react';

/** A labelled input with an optional hint and an error shown at the field. */
export function TextField(
  props: {
    label: string;
    value: string;
    onValue: (value: string) => void;
    hint?: string;
    error?: string | undefined;
    multiline?: boolean;
    rows?: number;
  } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>,
) {
  const { label, value, onValue, hint, error, multiline, rows, ...rest } = props;
  const id = useId();
  const describedBy = [error === undefined ? '' : `${id}-error`, hint === undefined ? '' : `${id}-hint`]
    .filter((part) => part !== '')
    .join(' ');
  const common = {
    id,
    value,
    'aria-describedby': describedBy === '' ? undefined : describedBy,
    'aria-invalid': error === undefined ? undefined : true,
  } as const;
  return (
    <div className={`field${error === undefined ? '' : ' has-error'}`}>
      <label htmlFor={id}>{label}</label>
      {multiline === true ? (
        <textarea
          {...common}
          rows={rows ?? 6}
          spellCheck={false}
          onChange={(event) => onValue(event.target.value)}
        />
      ) : (
        <input {...rest} {...common} onChange={(event) => onValue(event.target.value)} />
      )}
      {error === undefined ? null : (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
      {hint === undefined ? null : (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** A labelled select. */
export function SelectField(props: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: readonly { value: string; label: string }[];
  hint?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        onChange={(event) => props.onValue(event.target.value)}
        aria-describedby={props.hint === undefined ? undefined : `${id}-hint`}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {props.hint === undefined ? null : (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** Which field an API error belongs to: its `parameter`, or the first validation path's last segment. */
export function fieldOfError(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { parameter, details } = error as {
    parameter?: unknown;
    details?: { validation?: unknown; field?: unknown };
  };
  if (typeof parameter === 'string') return parameter;
  if (typeof details?.field === 'string') return details.field;
  const validation = details?.validation;
  if (Array.isArray(validation) && validation.length > 0) {
    const path = String((validation[0] as { path?: unknown }).path ?? '');
    const last = path
      .split('/')
      .filter((part) => part !== '')
      .pop();
    return last;
  }
  return undefined;
}
