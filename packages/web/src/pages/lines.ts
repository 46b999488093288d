/** Text areas that edit lists and maps, one entry per line. */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** `KEY=value` (or `Name: value`) lines into a record; the first separator splits. */
export function pairsOf(text: string, separator: '=' | ':'): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const line of linesOf(text)) {
    const at = line.indexOf(separator);
    if (at <= 0) continue;
    pairs[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return pairs;
}

export function textOfPairs(value: unknown, separator: '=' | ':'): string {
  if (typeof value !== 'object' || value === null) return '';
  return Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${key}${separator === '=' ? '=' : ': '}${String(item)}`)
    .join('\n');
}
