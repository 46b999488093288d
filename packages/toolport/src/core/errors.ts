import type { ErrorCode } from './error-codes.ts';

/**
 * Errors are recognised by a brand rather than `instanceof` alone: custom tools may load a second copy of toolport,
 * whose classes are different objects (STYLE "Errors").
 */
const TOOLPORT_ERROR_BRAND = Symbol.for('toolport.error');

export interface ToolportErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class ToolportError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly [TOOLPORT_ERROR_BRAND] = true;

  constructor(code: ErrorCode, message: string, options: ToolportErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolportError';
    this.code = code;
    this.details = options.details;
  }
}

/** True for any toolport error, including one thrown by another loaded copy of the library. */
export function isToolportError(error: unknown): error is ToolportError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[TOOLPORT_ERROR_BRAND] === true &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/** A model-supplied argument is wrong. The message is written for the model: which argument, expected, received. */
export class ToolArgumentError extends ToolportError {
  readonly argument: string;
  readonly expected: string;
  readonly received: string;

  constructor(argument: string, expected: string, received: string, message?: string) {
    super(
      'validation_failed',
      message ?? `Invalid argument \`${argument}\`: expected ${expected}, received ${received}.`,
      { details: { argument, expected, received } },
    );
    this.name = 'ToolArgumentError';
    this.argument = argument;
    this.expected = expected;
    this.received = received;
  }
}

/** A tool setting (stored or overridden) is invalid. Thrown by the settings policy; names the parameter. */
export class ToolParameterError extends ToolportError {
  readonly parameter: string;

  constructor(parameter: string, message: string) {
    super('invalid_settings', message, { details: { parameter } });
    this.name = 'ToolParameterError';
    this.parameter = parameter;
  }
}

/** A settings update was refused (invalid parameters, or disabling a tool that cannot be disabled). HTTP 422. */
export class ToolSettingsError extends ToolportError {
  readonly parameter: string | undefined;

  constructor(message: string, parameter?: string, cause?: unknown) {
    super('invalid_settings', message, {
      details: parameter === undefined ? {} : { parameter },
      cause,
    });
    this.name = 'ToolSettingsError';
    this.parameter = parameter;
  }
}

/** grep's `pattern` is not a valid regular expression. */
export class GrepPatternError extends ToolArgumentError {
  constructor(pattern: string, reason: string) {
    super(
      'pattern',
      'a valid JavaScript regular expression',
      JSON.stringify(pattern),
      `Invalid regular expression in \`pattern\` ${JSON.stringify(pattern)}: ${reason}. Escape special characters (for example \\( or \\.) to search for them literally.`,
    );
    this.name = 'GrepPatternError';
  }
}

/** Describe a value for an error message without echoing a large payload back. */
export function describeReceivedValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `array (${value.length} items)`;
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return `string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'object') return 'object';
  return `${typeof value} ${String(value)}`;
}
