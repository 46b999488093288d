/**
 * The longest literal every match of a regex must contain, so grep can skip a file with one memchr-speed
 * `Buffer.indexOf` before decoding it (what ripgrep does with its literal extraction). Conservative: it only reads the
 * top level of the pattern, gives up on any top-level alternation, and drops a character a quantifier makes optional.
 * Undefined when nothing is certain.
 */
const SPECIAL = new Set(['.', '^', '$', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}', '\\']);

export function requiredLiteral(source: string): string | undefined {
  let best = '';
  let run = '';
  let depth = 0;
  const endRun = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let index = 0; index < source.length; index += 1) {
    const character = source[index]!;
    if (depth > 0) {
      // Inside a group: skip to its end (its content may be optional or alternated).
      if (character === '\\') index += 1;
      else if (character === '(') depth += 1;
      else if (character === ')') depth -= 1;
      else if (character === '[') index = skipClass(source, index);
      continue;
    }
    if (character === '|') return undefined;
    if (character === '(') {
      endRun();
      depth = 1;
      continue;
    }
    if (character === '[') {
      endRun();
      index = skipClass(source, index);
      continue;
    }
    if (character === '?' || character === '*' || character === '{') {
      // The previous character was optional: it leaves the run. `{n,m}` is skipped whole.
      run = run.slice(0, -1);
      endRun();
      if (character === '{') {
        const close = source.indexOf('}', index);
        if (close === -1) return undefined;
        index = close;
      }
      continue;
    }
    if (character === '+') {
      endRun();
      continue;
    }
    if (character === '\\') {
      const next = source[index + 1];
      if (next === undefined) return undefined;
      index += 1;
      // \d, \w, \b, \u0041, \1 …: not a literal character. Escaped punctuation is.
      if (/[A-Za-z0-9]/.test(next)) endRun();
      else run += next;
      continue;
    }
    if (SPECIAL.has(character)) {
      endRun();
      continue;
    }
    run += character;
  }
  endRun();
  return best.length >= 3 ? best : undefined;
}

function skipClass(source: string, open: number): number {
  for (let index = open + 1; index < source.length; index += 1) {
    if (source[index] === '\\') index += 1;
    else if (source[index] === ']' && index > open + 1) return index;
  }
  return source.length;
}
