/**
 * opencode's wildcard for commands and tool names: `*` is any run of characters (spaces and slashes too), `?` one
 * character, `\` escapes the next one. The whole text must match. Compiled patterns are cached by text.
 */
const compiled = new Map<string, RegExp>();
const CACHE_LIMIT = 2000;

export function wildcardToRegExp(pattern: string): RegExp {
  let cached = compiled.get(pattern);
  if (cached !== undefined) return cached;
  let source = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index]!;
    if (char === '\\' && index + 1 < pattern.length) {
      index += 1;
      source += escapeRegExp(pattern[index]!);
    } else if (char === '*') source += '[\\s\\S]*';
    else if (char === '?') source += '[\\s\\S]';
    else source += escapeRegExp(char);
  }
  cached = new RegExp(`^${source}$`, 'u');
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(pattern, cached);
  return cached;
}

export function matchesWildcard(pattern: string, text: string): boolean {
  return wildcardToRegExp(pattern).test(text);
}

/** The pattern that matches exactly `text` (what `always` writes: never a wildcard). */
export function escapeWildcard(text: string): string {
  return text.replace(/[\\*?]/g, (char) => `\\${char}`);
}

function escapeRegExp(char: string): string {
  return /[.*+?^${}()|[\]\\]/.test(char) ? `\\${char}` : char;
}
