import { ToolportError } from '../core/errors.ts';
import {
  MAX_WORKSPACE_TOOL_TIMEOUT_SECONDS,
  MIN_WORKSPACE_TOOL_TIMEOUT_SECONDS,
} from './workspace-tools-file.ts';

/**
 * The `// @timeout N` pragma (seed: "O pragma @timeout é processado"), read from the script's leading comments only
 * (line or block comments before the first statement). `undefined` when absent; out of range is an error.
 */
export function readTimeoutPragma(source: string, filename: string): number | undefined {
  let rest = source.replace(/^#![^\n]*\n/, '');
  for (;;) {
    rest = rest.replace(/^\s+/, '');
    let comment: string;
    if (rest.startsWith('//')) {
      const end = rest.indexOf('\n');
      comment = end === -1 ? rest : rest.slice(0, end);
    } else if (rest.startsWith('/*')) {
      const end = rest.indexOf('*/');
      if (end === -1) return undefined;
      comment = rest.slice(0, end + 2);
    } else {
      return undefined;
    }
    const match = /@timeout\s+(\S+)/.exec(comment);
    if (match !== null) {
      const seconds = Number(match[1]);
      if (
        !Number.isInteger(seconds) ||
        seconds < MIN_WORKSPACE_TOOL_TIMEOUT_SECONDS ||
        seconds > MAX_WORKSPACE_TOOL_TIMEOUT_SECONDS
      ) {
        throw new ToolportError(
          'execution_failed',
          `${filename}: the @timeout pragma must be a whole number of seconds from ` +
            `${MIN_WORKSPACE_TOOL_TIMEOUT_SECONDS} to ${MAX_WORKSPACE_TOOL_TIMEOUT_SECONDS}, found ${JSON.stringify(match[1])}.`,
        );
      }
      return seconds;
    }
    rest = rest.slice(comment.length);
  }
}
