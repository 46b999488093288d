import picomatch from 'picomatch';

/**
 * Matchers for the name part of a `**\/<name pattern>` glob (scan-worker.ts). The common name patterns — `*.ts`,
 * `*.d.ts`, `*`, `*.{js,ts}`, `package.json` — are tested with `endsWith`/`===` instead of picomatch's regex: on a
 * 70,000-entry walk that is most of the per-entry cost left in JavaScript. Every fast matcher answers exactly what
 * picomatch's regex for the pattern answers on a single path segment (glob-name-matcher.test.ts holds them to it);
 * anything else goes to that regex. Not to `picomatch(pattern)` itself: it also accepts an input equal to the
 * pattern's text (a file named `*.{js,ts}`), which the whole-path match of `**\/*.{js,ts}` does not.
 */

export type NameMatcher = (name: string) => boolean;

/** Characters that are never glob syntax in picomatch: literal parts made only of these are taken as they are. */
const LITERAL = /^[\w.-]+$/;
/** `*` + literal suffix (`*.d.ts`, `*`), or `*` + literal + `{a,b,…}` of literals (`*.{js,ts}`). */
const STAR_SUFFIX = /^\*([\w.-]*)$/;
const STAR_BRACES = /^\*([\w.-]*)\{([\w.-]+(?:,[\w.-]+)+)\}$/;

/**
 * What picomatch's `*` demands of a segment's first character: `(?=.)` (not a line terminator, since its regexes
 * have no `s` flag), and `(?!\.)` without `dot`, or not the whole of `.`/`..` with it.
 */
function starAcceptsStart(name: string, dot: boolean): boolean {
  const first = name.charCodeAt(0);
  if (Number.isNaN(first) || first === 10 || first === 13 || first === 0x2028 || first === 0x2029)
    return false;
  if (dot) return name !== '.' && name !== '..';
  return first !== 46; /* . */
}

/** A fast matcher for `pattern` (one path segment), or undefined when the pattern needs picomatch. */
export function fastNameMatcher(pattern: string, dot: boolean): NameMatcher | undefined {
  if (LITERAL.test(pattern)) return (name) => name === pattern;
  const suffix = STAR_SUFFIX.exec(pattern)?.[1];
  if (suffix !== undefined) return (name) => name.endsWith(suffix) && starAcceptsStart(name, dot);
  const braces = STAR_BRACES.exec(pattern);
  if (braces !== null) {
    const suffixes = braces[2]!.split(',').map((alternative) => braces[1]! + alternative);
    return (name) => {
      if (!starAcceptsStart(name, dot)) return false;
      for (const candidate of suffixes) if (name.endsWith(candidate)) return true;
      return false;
    };
  }
  return undefined;
}

/** The matcher for a name pattern: the fast one when there is one, else picomatch's regex. */
export function compileNameMatcher(pattern: string, dot: boolean): NameMatcher {
  const fast = fastNameMatcher(pattern, dot);
  if (fast !== undefined) return fast;
  const regex = picomatch.makeRe(pattern, { dot });
  return (name) => regex.test(name);
}
