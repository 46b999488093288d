import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * .gitignore rules for a walk (grep/glob `respectGitignore`): the files of the repository above the search root
 * (up to the directory holding `.git`) and the ones found inside it, deeper files overriding shallower ones as in git.
 * A directory git ignores is pruned, so nothing inside it can be un-ignored (git's rule too).
 */
interface IgnoreLevel {
  matcher: Ignore;
  /** For a file above the root: the root's path relative to that file's directory, with a trailing slash. */
  prefix: string;
  /** For a file inside the root: its directory relative to the root ('' for the root itself). */
  directory: string | undefined;
}

function load(path: string): Ignore | undefined {
  try {
    return ignore({ allowRelativePaths: true }).add(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

export class GitignoreRules {
  readonly #root: string;
  readonly #chains = new Map<string, IgnoreLevel[]>();
  readonly #ancestors: IgnoreLevel[] = [];

  constructor(root: string) {
    this.#root = root;
    // Ancestors up to the repository's top (the directory with .git), outermost first.
    const found: IgnoreLevel[] = [];
    if (!existsSync(join(root, '.git'))) {
      for (let directory = dirname(root); ; directory = dirname(directory)) {
        const matcher = load(join(directory, '.gitignore'));
        if (matcher !== undefined) {
          found.push({ matcher, prefix: `${relative(directory, root)}/`, directory: undefined });
        }
        if (existsSync(join(directory, '.git')) || dirname(directory) === directory) break;
      }
    }
    // A root the repository ignores was named on purpose (grep node_modules/x): its own contents are searched.
    const rootIgnored = found.some((level) => level.matcher.test(level.prefix).ignored);
    this.#ancestors = rootIgnored ? [] : found.reverse();
  }

  /** The levels that apply inside `directory` (relative to the root, '' for the root). */
  chainFor(directory: string): IgnoreLevel[] {
    const cached = this.#chains.get(directory);
    if (cached !== undefined) return cached;
    const parent =
      directory === '' ? this.#ancestors : this.chainFor(directory.includes('/') ? dirname(directory) : '');
    const matcher = load(join(this.#root, directory, '.gitignore'));
    const chain = matcher === undefined ? parent : [...parent, { matcher, prefix: '', directory }];
    this.#chains.set(directory, chain);
    return chain;
  }

  /** Whether an entry at `relativePath` (relative to the root) is ignored by `chain`. */
  static ignores(chain: readonly IgnoreLevel[], relativePath: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const level of chain) {
      const local =
        level.directory === undefined
          ? level.prefix + relativePath
          : level.directory === ''
            ? relativePath
            : relativePath.slice(level.directory.length + 1);
      const result = level.matcher.test(isDirectory ? `${local}/` : local);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }
}
