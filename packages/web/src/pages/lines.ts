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

/** Words of a command line: whitespace separates, single or double quotes group (no escapes, no expansion). */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g))
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}

/**
 * A stdio server's command and arguments. With the Arguments field empty, a whole command line typed into Command
 * (`npx -y @modelcontextprotocol/server-everything`) is split into words.
 */
export function commandAndArguments(command: string, args: string): { command: string; args?: string[] } {
  const listed = linesOf(args);
  if (listed.length > 0) return { command: command.trim(), args: listed };
  const [first = '', ...rest] = wordsOf(command.trim());
  return rest.length === 0 ? { command: first } : { command: first, args: rest };
}
