import { describe, expect, it } from 'vitest';
import {
  GrepPatternError,
  ToolArgumentError,
  ToolportError,
  describeReceivedValue,
  isToolportError,
} from './errors.ts';

describe('toolport errors', () => {
  it('recognises errors by brand, including a copy from another module instance', () => {
    const foreign = Object.assign(new Error('from another copy'), {
      code: 'disabled',
      [Symbol.for('toolport.error')]: true,
    });
    expect(isToolportError(foreign)).toBe(true);
    expect(isToolportError(new Error('plain'))).toBe(false);
    expect(isToolportError(new ToolportError('not_found', 'x'))).toBe(true);
  });

  it('ToolArgumentError names the argument, the expectation and what came', () => {
    const error = new ToolArgumentError('path', 'string', 'number 42');
    expect(error.code).toBe('validation_failed');
    expect(error.message).toBe('Invalid argument `path`: expected string, received number 42.');
    expect(error.details).toEqual({ argument: 'path', expected: 'string', received: 'number 42' });
  });

  it('GrepPatternError is a validation_failed argument error on `pattern`', () => {
    const error = new GrepPatternError('(', 'Unterminated group');
    expect(error.argument).toBe('pattern');
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('Unterminated group');
  });

  it('describes received values without echoing large payloads', () => {
    expect(describeReceivedValue('x'.repeat(500)).length).toBeLessThan(80);
    expect(describeReceivedValue(null)).toBe('null');
    expect(describeReceivedValue([1, 2])).toBe('array (2 items)');
    expect(describeReceivedValue(true)).toBe('boolean true');
  });
});
