import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeToolFolder } from './code-tool-folders.ts';

/*
 * Which files are code tools, without loading anything: callers check `hasCodeToolFiles` first so a project without
 * code tools never loads zod or esbuild (the CLI's and `toolport mcp`'s cold start).
 */

/** Tool files: `*.ts`, `*.mts`, `*.js`, `*.mjs`, not declaration files, not hidden files. */
const TOOL_FILE = /^(?!.*\.d\.m?ts$)[^.].*\.(ts|mts|js|mjs)$/;

/** The tool files of one folder, sorted by name; a missing folder has none. */
export function listToolFiles(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of names.sort()) {
    if (!TOOL_FILE.test(name)) continue;
    const path = join(folder, name);
    try {
      if (statSync(path).isFile()) files.push(path);
    } catch {
      // A dangling link or a file removed meanwhile is not a tool.
    }
  }
  return files;
}

export function hasCodeToolFiles(folders: readonly CodeToolFolder[]): boolean {
  return folders.some((folder) => listToolFiles(folder.path).length > 0);
}
