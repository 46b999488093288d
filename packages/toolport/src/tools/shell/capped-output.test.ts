import { describe, expect, it } from 'vitest';
import { CappedOutput, withoutIncompleteUtf8Tail } from './capped-output.ts';

describe('FS-6 capped output', () => {
  it('keeps at most maxBytes however much streams in, and counts the rest', () => {
    const output = new CappedOutput(10);
    for (let index = 0; index < 1000; index += 1) output.append(Buffer.from('yyyyyyy\n'));
    expect(output.text()).toBe('yyyyyyy\nyy');
    expect(output.truncated).toBe(true);
    expect(output.totalBytes).toBe(8000);
  });

  it('is not truncated at exactly maxBytes', () => {
    const output = new CappedOutput(4);
    output.append(Buffer.from('ab'));
    output.append(Buffer.from('cd'));
    expect(output.truncated).toBe(false);
    expect(output.text()).toBe('abcd');
  });

  it('drops a multi-byte character the cap cut in two', () => {
    for (const character of ['é', '€', '𝄞']) {
      const bytes = Buffer.from(`a${character}`);
      for (let cut = 2; cut < bytes.length; cut += 1) {
        expect(withoutIncompleteUtf8Tail(bytes.subarray(0, cut)).toString()).toBe('a');
      }
      expect(withoutIncompleteUtf8Tail(bytes).toString()).toBe(`a${character}`);
    }
  });

  it('decodes a character split across two chunks', () => {
    const output = new CappedOutput(100);
    const euro = Buffer.from('€');
    output.append(euro.subarray(0, 1));
    output.append(euro.subarray(1));
    expect(output.text()).toBe('€');
  });
});
