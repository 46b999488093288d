import type { PartialArg } from '@google/genai';

/**
 * Vertex streams function-call arguments as `partialArgs` (`{jsonPath: '$.location', stringValue, willContinue}`).
 * This rebuilds both the argument object (for the history) and, incrementally, the JSON text the normalized
 * `tool_call_arguments_delta` events carry, so the deltas of a call concatenate to its final argument text.
 * Top-level keys stream as they come; a nested path switches the call to one delta with the whole text at the end.
 */
export class PartialArgumentsWriter {
  readonly value: Record<string, unknown> = {};
  #opened = false;
  #openStringKey: string | undefined;
  #nested = false;
  #emitted = '';

  /** Returns the JSON text to emit for this piece ('' when nothing is emitted yet). */
  push(argument: PartialArg): string {
    const path = argument.jsonPath ?? '';
    const match = /^\$\.([A-Za-z_$][\w$]*)$/.exec(path) ?? /^\$\['((?:[^'\\]|\\.)*)'\]$/.exec(path);
    const key = match?.[1];
    const value =
      argument.stringValue ??
      argument.numberValue ??
      argument.boolValue ??
      (argument.nullValue !== undefined ? null : undefined);
    if (key === undefined) {
      this.#nested = true;
      setPath(this.value, path, value, argument.stringValue !== undefined);
      return '';
    }
    const isString = argument.stringValue !== undefined;
    if (isString && typeof this.value[key] === 'string' && this.#openStringKey === key) {
      this.value[key] = (this.value[key] as string) + argument.stringValue;
    } else this.value[key] = value;
    if (this.#nested) return '';

    let text = '';
    if (this.#openStringKey === key && isString) {
      text += escapeJsonString(argument.stringValue!);
    } else {
      if (this.#openStringKey !== undefined) text += '"';
      this.#openStringKey = undefined;
      text += `${this.#opened ? ',' : '{'}${JSON.stringify(key)}:`;
      this.#opened = true;
      if (isString) {
        text += `"${escapeJsonString(argument.stringValue!)}`;
        this.#openStringKey = key;
      } else text += JSON.stringify(value ?? null);
    }
    if (isString && argument.willContinue !== true) {
      text += '"';
      this.#openStringKey = undefined;
    }
    this.#emitted += text;
    return text;
  }

  /** Closes the object; returns the text still to emit. */
  finish(): string {
    if (this.#nested) {
      const whole = JSON.stringify(this.value);
      return this.#emitted === '' ? whole : '';
    }
    let text = '';
    if (this.#openStringKey !== undefined) text += '"';
    if (this.#opened) text += '}';
    this.#emitted += text;
    return text;
  }

  /** The final argument text: what was emitted, or the rebuilt object when a nested path forced buffering. */
  text(): string {
    return this.#nested && this.#emitted !== '' ? JSON.stringify(this.value) : this.#emitted;
  }
}

function escapeJsonString(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown, append: boolean): void {
  const segments = [...path.replace(/^\$/, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]|\['([^']+)'\]/g)].map(
    (match) => (match[2] !== undefined ? Number(match[2]) : (match[1] ?? match[3]!)),
  );
  if (segments.length === 0) return;
  let node: Record<string | number, unknown> = target;
  for (const [position, segment] of segments.entries()) {
    const last = position === segments.length - 1;
    if (last) {
      node[segment] = append && typeof node[segment] === 'string' ? (node[segment] as string) + value : value;
    } else {
      const next = segments[position + 1];
      node[segment] ??= typeof next === 'number' ? [] : {};
      node = node[segment] as Record<string | number, unknown>;
    }
  }
}
