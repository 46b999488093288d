import { describe, expect, it } from 'vitest';
import { compileLiteralFinder, compileLiteralPrefilter, compileLiteralSearch } from './literal-search.ts';

/** A small deterministic generator, so a failure reproduces. */
function pseudoRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('FS-5 grep literal search', () => {
  it('answers exactly what Buffer.indexOf answers, hit or miss, at the edges and around false hits', () => {
    const literals = [
      'createProgram',
      'readFileSync',
      'zqxjv_nomatch_',
      'aXa',
      'Program',
      'Pxx',
      'café_au_lait',
      'ab',
    ];
    const cases: string[] = [
      '',
      'createProgram',
      'xcreateProgram',
      'createProgra',
      'reateProgram',
      'Program Program createProgra createProgram',
      'FileSync readFileSyn readFileSync',
      'zqxjv_nomatch',
      'qxjv_nomatch_ zqxjv_nomatch_',
      'aXaXa',
      'Xa',
      'café_au_lai café_au_lait',
      'caf\u00e9_au_lait'.normalize('NFD'),
    ];
    const random = pseudoRandom(11);
    const alphabet = 'acegmoPrXxyzFSn_ ';
    for (let count = 0; count < 300; count += 1) {
      const length = Math.floor(random() * 40);
      let text = '';
      for (let index = 0; index < length; index += 1)
        text += alphabet[Math.floor(random() * alphabet.length)];
      const literal = literals[count % literals.length]!;
      // Plant the literal, or a piece of it, half the time.
      if (random() < 0.5) {
        const piece =
          random() < 0.5 ? literal : literal.slice(1 + Math.floor(random() * (literal.length - 1)));
        const at = Math.floor(random() * (text.length + 1));
        text = text.slice(0, at) + piece + text.slice(at);
      }
      cases.push(text);
    }
    for (const literal of literals) {
      const search = compileLiteralSearch(literal);
      const find = compileLiteralFinder(literal);
      const needle = Buffer.from(literal);
      for (const text of cases) {
        const bytes = Buffer.from(text);
        expect(search(bytes), `${literal} in ${JSON.stringify(text)}`).toBe(bytes.indexOf(needle) !== -1);
        // The finder gives the very position indexOf gives, from every starting point (past the end too).
        for (let from = 0; from <= bytes.length + 1; from += 1)
          expect(find(bytes, from), `${literal} in ${JSON.stringify(text)} from ${from}`).toBe(
            bytes.indexOf(needle, from),
          );
      }
    }
  });

  it('reads only the bytes it is given (a view into a larger buffer)', () => {
    const backing = Buffer.from('xxcreateProgram');
    expect(compileLiteralSearch('createProgram')(backing.subarray(0, 10))).toBe(false);
    expect(compileLiteralSearch('createProgram')(backing.subarray(2))).toBe(true);
  });

  it('accepts a file that contains any of several literals, and only then', () => {
    const any = compileLiteralPrefilter(['createProgram', 'readFileSync']);
    expect(any(Buffer.from('const x = readFileSync(p)'))).toBe(true);
    expect(any(Buffer.from('ts.createProgram()'))).toBe(true);
    expect(any(Buffer.from('readFile Sync createprogram'))).toBe(false);
  });
});
