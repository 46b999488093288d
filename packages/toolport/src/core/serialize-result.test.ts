import { describe, expect, it } from 'vitest';
import { serializeToolResult, stringifyToolResult } from './serialize-result.ts';

describe('CORE-7 result serialization', () => {
  it('serializes deterministically: the same value gives the same text', () => {
    const value = { b: 1, a: [1, 2, { c: 'x' }] };
    expect(serializeToolResult(value).text).toBe(serializeToolResult(structuredClone(value)).text);
    expect(serializeToolResult(value).text).toBe('{"b":1,"a":[1,2,{"c":"x"}]}');
  });

  it('passes strings through and turns undefined into null', () => {
    expect(stringifyToolResult('plain text')).toBe('plain text');
    expect(stringifyToolResult(undefined)).toBe('null');
  });

  it('caps the size and appends a truncation notice', () => {
    const serialized = serializeToolResult({ data: 'x'.repeat(1000) }, 100);
    expect(serialized.truncated).toBe(true);
    expect(serialized.fullLength).toBe(1011);
    expect(serialized.text.startsWith('{"data":"xxxx')).toBe(true);
    expect(serialized.text).toContain('result truncated: showing 100 of 1011 characters');
  });

  it('does not truncate at the cap exactly', () => {
    expect(serializeToolResult('y'.repeat(100), 100)).toEqual({
      text: 'y'.repeat(100),
      fullLength: 100,
      truncated: false,
    });
  });

  it('survives cycles, BigInt and errors instead of throwing', () => {
    const cyclic: Record<string, unknown> = { name: 'loop', big: 10n };
    cyclic.self = cyclic;
    const text = stringifyToolResult(cyclic);
    expect(JSON.parse(text)).toEqual({ name: 'loop', big: '10', self: '[Circular]' });
    expect(JSON.parse(stringifyToolResult({ error: new Error('boom'), again: 1n }))).toEqual({
      error: { name: 'Error', message: 'boom' },
      again: '1',
    });
  });

  it('keeps repeated (non-cyclic) references', () => {
    const shared = { v: 1 };
    expect(JSON.parse(stringifyToolResult({ a: shared, b: shared, n: 1n }))).toEqual({
      a: { v: 1 },
      b: { v: 1 },
      n: '1',
    });
  });
});
