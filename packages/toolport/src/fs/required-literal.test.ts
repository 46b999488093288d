import { describe, expect, it } from 'vitest';
import { requiredLiteral, requiredLiterals, splitTopLevelAlternatives } from './required-literal.ts';

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
    // JavaScript: `[]` is the empty class, so `abc]` after it is literal text, and `[^]` is any character.
    expect(requiredLiteral('[]abc')).toBe('abc');
    expect(requiredLiteral('[^]abcd')).toBe('abcd');
  });

  it('never takes the operand of an escape as literal text', () => {
    // \x41 is "A", \u0041 is "A", \cJ a newline, \k<w> a back-reference, \12 a back-reference or octal escape.
    expect(requiredLiteral('\\x41BCD')).toBe('BCD');
    expect(requiredLiteral('\\u0041pple')).toBe('pple');
    expect(requiredLiteral('\\cJoined')).toBe('oined');
    expect(requiredLiteral('(?<w>ab)\\k<word>xyz')).toBe('xyz');
    expect(requiredLiteral('(a)\\123456')).toBeUndefined();
  });

  it('leaves out characters the raw bytes cannot show (U+FFFD, lone and paired surrogates)', () => {
    expect(requiredLiteral('\uFFFDbadbytes')).toBe('badbytes');
    expect(requiredLiteral('smile\uD83D\uDE00?s')).toBe('smile');
    expect(requiredLiteral('ab\uD83Dcdef')).toBe('cdef');
  });
});

describe('FS-5 grep alternation prefilter', () => {
  it('splits only at top-level bars', () => {
    expect(splitTopLevelAlternatives('a|b')).toEqual(['a', 'b']);
    expect(splitTopLevelAlternatives('(a|b)c|d')).toEqual(['(a|b)c', 'd']);
    expect(splitTopLevelAlternatives('a\\|b')).toEqual(['a\\|b']);
    expect(splitTopLevelAlternatives('[|]x|y')).toEqual(['[|]x', 'y']);
    expect(splitTopLevelAlternatives('[\\]|]x')).toEqual(['[\\]|]x']);
    expect(splitTopLevelAlternatives('a|')).toEqual(['a', '']);
  });

  it('gives one literal per top-level alternative', () => {
    expect(requiredLiterals('createProgram|readFileSync')).toEqual(['createProgram', 'readFileSync']);
    expect(requiredLiterals('(foo|bar)bazz|qux_thing')).toEqual(['bazz', 'qux_thing']);
    expect(requiredLiterals('^export|^import')).toEqual(['export', 'import']);
    expect(requiredLiterals('needle')).toEqual(['needle']);
  });

  it('keeps the shorter of two literals when one contains the other, and drops repeats', () => {
    expect(requiredLiterals('foobar|foo|foo')).toEqual(['foo']);
  });

  it('reads an escaped bar and a bar inside a class as part of one alternative', () => {
    expect(requiredLiterals('foo\\|bar')).toEqual(['foo|bar']);
    expect(requiredLiterals('[a|b]xyz')).toEqual(['xyz']);
  });

  it('gives up when any alternative has no certain literal', () => {
    expect(requiredLiterals('foo|')).toBeUndefined();
    expect(requiredLiterals('|foo')).toBeUndefined();
    expect(requiredLiterals('foo||bar')).toBeUndefined();
    expect(requiredLiterals('needle|ab')).toBeUndefined();
    expect(requiredLiterals('needle|\\w+')).toBeUndefined();
    expect(requiredLiterals('alpha|beta|gamma|delta|epsilon|zeta|eta1|theta|iota')).toBeUndefined();
  });
});
