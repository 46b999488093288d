import { describe, expect, it } from 'vitest';
import { requiredLiteral } from './required-literal.ts';

describe('FS-5 grep literal prefilter', () => {
  it('extracts the longest literal every match must contain', () => {
    expect(requiredLiteral('resolveAndValidatePath')).toBe('resolveAndValidatePath');
    expect(requiredLiteral('zqxjv_nomatch_[0-9]+')).toBe('zqxjv_nomatch_');
    expect(requiredLiteral('^export function \\w+')).toBe('export function ');
    expect(requiredLiteral('foo\\.bar\\(')).toBe('foo.bar(');
    expect(requiredLiteral('colou?r_name')).toBe('r_name');
    expect(requiredLiteral('abcd+e')).toBe('abcd');
    expect(requiredLiteral('x{2,3}needle')).toBe('needle');
  });

  it('gives up when no literal is certain', () => {
    expect(requiredLiteral('foo|bar')).toBeUndefined();
    expect(requiredLiteral('(foo|bar)')).toBeUndefined();
    expect(requiredLiteral('[a-z]+')).toBeUndefined();
    expect(requiredLiteral('ab')).toBeUndefined();
    expect(requiredLiteral('\\d+\\s*\\w')).toBeUndefined();
  });

  it('never takes a literal from inside a group or a class', () => {
    expect(requiredLiteral('(optional)?tail')).toBe('tail');
    expect(requiredLiteral('[needle]xyz')).toBe('xyz');
  });
});
