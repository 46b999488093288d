import { relative, sep } from 'node:path';
import { isPathInside } from './resolve-and-validate-path.ts';

/**
 * SPEC PATH-3: a path in a result list is relative to the chat's working directory (not to the search root the call
 * named), so it can be passed straight to read_file. Absolute when no working directory is bound (chat mode) or when
 * the path lies outside it.
 */
export function reportPath(absolutePath: string, anchorDirectory: string | undefined): string {
  if (anchorDirectory === undefined || !isPathInside(absolutePath, anchorDirectory)) return absolutePath;
  const relativePath = relative(anchorDirectory, absolutePath);
  return relativePath === '' ? '.' : relativePath;
}

/** Prefix that turns a path relative to `root` into one relative to `anchor` (both absolute), or undefined. */
export function anchorPrefix(root: string, anchorDirectory: string | undefined): string | undefined {
  if (anchorDirectory === undefined || !isPathInside(root, anchorDirectory)) return undefined;
  const relativeRoot = relative(anchorDirectory, root);
  return relativeRoot === '' ? '' : relativeRoot + sep;
}
