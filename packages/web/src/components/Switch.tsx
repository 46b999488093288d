/** An on/off switch (a checkbox with the switch role), named by `label`. */
export function Switch(props: {
  label: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
  describedBy?: string;
}) {
  return (
    <label className="switch">
      <input
        type="checkbox"
        role="switch"
        aria-label={props.label}
        aria-describedby={props.describedBy}
        checked={props.checked}
        disabled={props.disabled}
        onChange={(event) => props.onChange(event.target.checked)}
      />
      <span className="switch-track" aria-hidden="true" />
      <span className="switch-text" aria-hidden="true">
        {props.checked ? 'On' : 'Off'}
      </span>
    </label>
  );
}
