/**
 * Literals every match of a regex must contain, so grep can skip a file with memchr-speed `Buffer.indexOf` calls
 * before decoding it (what ripgrep does with its literal extraction). Conservative: it only reads the top level of
 * each top-level alternative, and drops a character a quantifier makes optional. Undefined when nothing is certain.
 * The source is read with JavaScript's non-unicode syntax (grep compiles with flags '' or 'i').
 */
const SPECIAL = new Set(['.', '^', '$', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}', '\\']);

/** More alternatives than this cost more `indexOf` passes than the regex scan they would save. */
const MAX_ALTERNATIVES = 8;
const MIN_LITERAL_LENGTH = 3;

/**
 * One literal per top-level alternative (`a|b` → ['a', 'b']): a file that contains none of them cannot match.
 * Undefined when any alternative has no certain literal (an empty alternative matches everywhere).
 */
export function requiredLiterals(source: string): string[] | undefined {
  const alternatives = splitTopLevelAlternatives(source);
  if (alternatives.length > MAX_ALTERNATIVES) return undefined;
  const literals: string[] = [];
  for (const alternative of alternatives) {
    const literal = requiredLiteral(alternative);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  // A literal that contains another is implied by it: a file with 'foobar' has 'foo'.
  return [...new Set(literals)].filter(
    (literal, _index, all) => !all.some((other) => other !== literal && literal.includes(other)),
  );
}

/**
 * The alternatives of a pattern that is nothing but literals (`createProgram|readFileSync`, `foo\.bar`), each as the
 * exact text it matches; undefined when any alternative has a character that is not itself (a class, a group, a
 * quantifier, an anchor, a letter escape), is empty, or cannot be looked for in raw bytes. Such a pattern matches a
 * line exactly where one of these texts occurs in its bytes, so grep needs no regex for it (flags '' only).
 */
export function literalAlternatives(source: string): string[] | undefined {
  const alternatives = splitTopLevelAlternatives(source);
  if (alternatives.length > MAX_ALTERNATIVES) return undefined;
  const literals: string[] = [];
  for (const alternative of alternatives) {
    let literal = '';
    for (let index = 0; index < alternative.length; index += 1) {
      let character = alternative[index]!;
      if (character === '\\') {
        character = alternative[index + 1] ?? '';
        index += 1;
        // \d, \x41, \1 …: not the character itself. A line terminator never occurs inside a grep line.
        if (character === '' || /[A-Za-z0-9]/.test(character)) return undefined;
      } else if (SPECIAL.has(character)) return undefined;
      else if (isSurrogatePair(alternative, index)) {
        // Decoded UTF-8 holds surrogates only in pairs: a whole pair is the astral character's bytes.
        literal += alternative.slice(index, index + 2);
        index += 1;
        continue;
      }
      if (!isByteSafe(character) || character === '\n' || character === '\r') return undefined;
      literal += character;
    }
    if (literal === '') return undefined;
    literals.push(literal);
  }
  return [...new Set(literals)];
}

/** The longest literal every match of a pattern without a top-level `|` must contain. */
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
      // \d, \w, \b, \x41, \u0041, \cJ, \k<name>, \12 …: not literal characters, and neither are the characters the
      // escape consumes after its letter. Escaped punctuation is a literal.
      if (/[A-Za-z0-9]/.test(next)) {
        endRun();
        index = skipEscapeOperand(source, index);
      } else if (isByteSafe(next)) run += next;
      else endRun();
      continue;
    }
    if (SPECIAL.has(character) || !isByteSafe(character)) {
      endRun();
      continue;
    }
    run += character;
  }
  endRun();
  return best.length >= MIN_LITERAL_LENGTH ? best : undefined;
}

/** The pattern's top-level alternatives: `|` inside a group, a class or after a backslash does not split. */
export function splitTopLevelAlternatives(source: string): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < source.length; index += 1) {
    const character = source[index];
    if (character === '\\') index += 1;
    else if (character === '[') index = skipClass(source, index);
    else if (character === '(') depth += 1;
    else if (character === ')') depth = Math.max(0, depth - 1);
    else if (character === '|' && depth === 0) {
      alternatives.push(source.slice(start, index));
      start = index + 1;
    }
  }
  alternatives.push(source.slice(start));
  return alternatives;
}

/**
 * A lone surrogate matches half of a decoded astral character but encodes as U+FFFD, and U+FFFD itself matches
 * any invalid byte sequence: neither can be looked for in the raw bytes.
 */
function isByteSafe(character: string): boolean {
  const code = character.charCodeAt(0);
  return !(code >= 0xd800 && code <= 0xdfff) && code !== 0xfffd;
}

function isSurrogatePair(source: string, index: number): boolean {
  const high = source.charCodeAt(index);
  const low = source.charCodeAt(index + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/** `escape` is the index of the escape's letter or digit; returns the index of the escape's last character. */
function skipEscapeOperand(source: string, escape: number): number {
  const letter = source[escape]!;
  const take = (pattern: RegExp): number => {
    const match = pattern.exec(source.slice(escape + 1));
    return escape + (match === null ? 0 : match[0].length);
  };
  if (letter >= '0' && letter <= '9') return take(/^[0-9]*/);
  if (letter === 'x') return take(/^[0-9A-Fa-f]{0,2}/);
  if (letter === 'u') return take(/^(?:\{[0-9A-Fa-f]*\}|[0-9A-Fa-f]{0,4})/);
  if (letter === 'c') return take(/^[A-Za-z]?/);
  if (letter === 'k') return take(/^(?:<[\w$]*>)?/);
  if (letter === 'p' || letter === 'P') return take(/^(?:\{[\w=]*\})?/);
  return escape;
}

/** JavaScript's classes: `[]` is the empty class and `[^]` any character (a `]` right after `[` closes it). */
function skipClass(source: string, open: number): number {
  for (let index = open + 1; index < source.length; index += 1) {
    if (source[index] === '\\') index += 1;
    else if (source[index] === ']') return index;
  }
  return source.length;
}
