/**
 * The one table of error codes (STYLE "Errors"). Every structured error toolport returns — from executeTool, the CLI,
 * the HTTP API or the MCP server — carries one of these codes. `docs/errors.md` lists them and a test checks both
 * directions. A retired code is never reused: mark it retired here instead of deleting it.
 */
export const ERROR_CODES = {
  not_found: {
    httpStatus: 404,
    meaning: 'The named tool, resource or record does not exist (or is not yours).',
  },
  disabled: { httpStatus: 403, meaning: 'The tool exists but is disabled for this user or agent.' },
  validation_failed: {
    httpStatus: 422,
    meaning:
      'Arguments did not match the tool schema or a tool-specific rule; the message names the argument.',
  },
  invalid_settings: {
    httpStatus: 422,
    meaning:
      'A tool setting is invalid (unknown name, wrong type, out of bounds, not allowed) or cannot be changed.',
  },
  timeout: { httpStatus: 504, meaning: 'The tool ran past its time budget and was cancelled.' },
  aborted: {
    httpStatus: 499,
    meaning: 'The caller cancelled the call (user cancel, closed stream) before it finished.',
  },
  execution_failed: { httpStatus: 500, meaning: 'The tool started but failed; the message says why.' },
  permission_denied: {
    httpStatus: 403,
    meaning:
      'A policy refused the call: path containment, the operator policy (details.policyKey), an agent permission, a blocked network address.',
  },
  unauthorized: { httpStatus: 401, meaning: 'No valid bearer token was presented.' },
  bad_request: {
    httpStatus: 400,
    meaning: 'The request itself is malformed (unparsable JSON, unknown flag, bad shape).',
  },
  conflict: {
    httpStatus: 409,
    meaning: 'The request conflicts with the current state (duplicate name, stale file).',
  },
  internal_error: {
    httpStatus: 500,
    meaning: 'An unexpected failure inside toolport; the server log has the details.',
  },
} as const satisfies Record<string, { httpStatus: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

export function httpStatusForErrorCode(code: ErrorCode): number {
  return ERROR_CODES[code].httpStatus;
}
