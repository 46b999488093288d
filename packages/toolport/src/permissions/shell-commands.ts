import { createRequire } from 'node:module';

/**
 * Issue 16: a shell line split into its simple commands with a real parser (mvdan/sh, transpiled to JS: synchronous,
 * no native code). Every simple command is found wherever it sits — after `;`, `&&`, `||`, `|`, in subshells,
 * `{ …; }`, `$(…)`, backquotes, `<(…)`, loops and conditions — so `a && rm -rf x` is two commands.
 */
export interface SimpleCommand {
  /** The words with static quoting removed (`"rm" -rf 'x'` → `rm -rf x`); words with expansions keep their source. */
  text: string;
  /** True when the command name itself is not static (`$CMD x`, `$(which rm) x`): no rule can know what runs. */
  dynamicName: boolean;
}

export type ParsedShellLine = { ok: true; commands: SimpleCommand[] } | { ok: false; error: string };

interface ShellNode {
  Pos(): { Offset(): number };
  End(): { Offset(): number };
}
interface WordPart extends ShellNode {
  Value?: string;
  Parts?: WordPart[];
}
interface Word extends ShellNode {
  Parts: WordPart[];
}
interface CallExpr extends ShellNode {
  Args: Word[] | null;
}
interface MvdanSyntax {
  NewParser(): { Parse(source: string, name: string): ShellNode };
  Walk(node: ShellNode, visit: (node: ShellNode | null) => boolean): void;
  NodeType(node: ShellNode): string;
}

let syntax: MvdanSyntax | undefined;

// Loaded on first use: GopherJS output takes a noticeable moment to load, and only shell rules with patterns need it.
function loadSyntax(): MvdanSyntax {
  syntax ??= (createRequire(import.meta.url)('mvdan-sh') as { syntax: MvdanSyntax }).syntax;
  return syntax;
}

function unescapeUnquoted(value: string): string {
  return value.replace(/\\\n/g, '').replace(/\\([\s\S])/g, '$1');
}

function unescapeDoubleQuoted(value: string): string {
  return value.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
}

/** The word's value when it has no expansion, else undefined. */
function staticWordValue(word: Word, sh: MvdanSyntax): string | undefined {
  let value = '';
  for (const part of word.Parts) {
    const type = sh.NodeType(part);
    if (type === 'Lit') value += unescapeUnquoted(part.Value ?? '');
    else if (type === 'SglQuoted') value += part.Value ?? '';
    else if (type === 'DblQuoted') {
      for (const inner of part.Parts ?? []) {
        if (sh.NodeType(inner) !== 'Lit') return undefined;
        value += unescapeDoubleQuoted(inner.Value ?? '');
      }
    } else return undefined;
  }
  return value;
}

// Characters with no shell meaning: a line of only these (and spaces) is one simple command whose words are the
// whitespace-separated pieces. Quotes, operators, expansions, globs, comments and newlines all go to the parser.
const PLAIN_LINE = /^[A-Za-z0-9_./:,+@%=-]+(?:[ \t]+[A-Za-z0-9_./:,+@%=-]+)*[ \t]*$/;
const ASSIGNMENT_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** A command name the shell expands (a glob or a brace list) is not the text a rule sees. */
function nameExpands(word: Word, sh: MvdanSyntax): boolean {
  return word.Parts.some((part) => sh.NodeType(part) === 'Lit' && /[*?[{]/.test(part.Value ?? ''));
}

export function parseShellLine(line: string): ParsedShellLine {
  // The fast path skips the parser (its tree walk costs about a millisecond) for the common `git status`.
  const trimmed = line.trim();
  if (PLAIN_LINE.test(trimmed) && !ASSIGNMENT_WORD.test(trimmed)) {
    return { ok: true, commands: [{ text: trimmed.split(/[ \t]+/).join(' '), dynamicName: false }] };
  }
  const sh = loadSyntax();
  let file: ShellNode;
  try {
    file = sh.NewParser().Parse(line, '');
  } catch (error) {
    const goError = error as { Error?: () => string };
    return { ok: false, error: typeof goError.Error === 'function' ? goError.Error() : String(error) };
  }
  const commands: SimpleCommand[] = [];
  sh.Walk(file, (node) => {
    if (node === null || sh.NodeType(node) !== 'CallExpr') return true;
    const args = (node as CallExpr).Args ?? [];
    // Assignments only (`A=1`): nothing runs but what their values' substitutions run, which the walk visits.
    if (args.length === 0) return true;
    const words = args.map(
      (word) => staticWordValue(word, sh) ?? line.slice(word.Pos().Offset(), word.End().Offset()),
    );
    commands.push({
      text: words.join(' '),
      dynamicName: staticWordValue(args[0]!, sh) === undefined || nameExpands(args[0]!, sh),
    });
    return true;
  });
  return { ok: true, commands };
}
