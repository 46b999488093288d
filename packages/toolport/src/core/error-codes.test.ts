import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, httpStatusForErrorCode, isErrorCode } from './error-codes.ts';

const docs = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
const documentedRows = [...docs.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((match) => ({
  code: match[1]!,
  status: Number(match[2]),
}));

describe('error code table and docs/errors.md', () => {
  it('documents every code in the table with its HTTP status', () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(documentedRows, `docs/errors.md is missing ${code}`).toContainEqual({
        code,
        status: entry.httpStatus,
      });
    }
  });

  it('documents no code that the table lacks', () => {
    expect(documentedRows.length).toBeGreaterThan(0);
    for (const row of documentedRows)
      expect(isErrorCode(row.code), `${row.code} is not in ERROR_CODES`).toBe(true);
  });

  it('includes every code SPEC CORE-6 requires', () => {
    for (const code of [
      'not_found',
      'disabled',
      'validation_failed',
      'timeout',
      'aborted',
      'execution_failed',
      'permission_denied',
    ]) {
      expect(isErrorCode(code)).toBe(true);
    }
    expect(httpStatusForErrorCode('validation_failed')).toBe(422);
    expect(isErrorCode('toString')).toBe(false);
  });
});
