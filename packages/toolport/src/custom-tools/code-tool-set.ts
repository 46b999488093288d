import { statSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { TOOL_NAME_PATTERN, type RegistryEntry } from '../core/tool-registry.ts';
import type { RegisteredTool } from '../core/tool-types.ts';
import { bundleCodeToolFiles } from './code-tool-bundler.ts';
import {
  explainNotATool,
  looksLikeCodeTool,
  toCodeRegisteredTool,
  type CodeToolExport,
} from './code-tool-definition.ts';
import { listToolFiles } from './code-tool-discovery.ts';
import type { CodeToolFolder } from './code-tool-folders.ts';

/** A file that did not load, or an export that could not become a tool; every other tool still loads (CODE-1). */
export interface CodeToolLoadError {
  file: string;
  reason: string;
}

/** A code tool hidden by a stronger folder's tool of the same name (a built-in hidden by a code tool is noted too). */
export interface ShadowedCodeTool {
  name: string;
  file: string;
  shadowedBy: string;
}

export interface CodeToolSnapshot {
  /** The winning code tools, sorted by name, `source: { kind: 'code', origin: file, file }`. */
  readonly entries: readonly RegistryEntry[];
  readonly loadErrors: readonly CodeToolLoadError[];
  readonly shadowed: readonly ShadowedCodeTool[];
  /** Equal snapshots have equal signatures: names, files and definitions. */
  readonly signature: string;
  /** Grows whenever a file was loaded again or removed (a new `execute` can hide behind an equal signature). */
  readonly generation: number;
}

export interface CodeToolSetOptions {
  /** Highest precedence first (code-tool-folders.ts). */
  folders: readonly CodeToolFolder[];
  /** `context.directory` for tools of folders without their own workspace (the global folders). */
  workspace: string;
  /** A module whose top-level await never settles is a load error after this long (default 10 s). */
  importTimeoutMs?: number;
}

const DEFAULT_IMPORT_TIMEOUT_MS = 10_000;

type ToolOrError = { name: string; tool: RegisteredTool } | { error: string };

interface LoadedFile {
  stamp: string;
  inputs: readonly string[];
  /** What the file defines, or why it failed as a whole. */
  tools: readonly ToolOrError[];
  signature: string;
}

function stampOf(paths: readonly string[]): string {
  let stamp = '';
  for (const path of paths) {
    try {
      const stats = statSync(path, { bigint: true });
      stamp += `${path}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.size};`;
    } catch {
      stamp += `${path}:missing;`;
    }
  }
  return stamp;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function importWithTimeout(code: string, timeoutMs: number): Promise<Record<string, unknown>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`its top-level code did not finish within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    const url = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
    return (await Promise.race([import(url), timeout])) as Record<string, unknown>;
  } finally {
    clearTimeout(timer);
  }
}

/** Every export of one module as tools (default → the file's name, `x` → `<file>_x`) or load errors. */
function toolsOfModule(file: string, namespace: Record<string, unknown>, workspace: string): ToolOrError[] {
  const fileName = basename(file, extname(file));
  const results: ToolOrError[] = [];
  for (const exportName of Object.keys(namespace).sort()) {
    const value = namespace[exportName];
    const isDefault = exportName === 'default';
    // Constants and helpers beside tools are common: only a default export must be a tool.
    if (!isDefault && !looksLikeCodeTool(value)) continue;
    const name = isDefault ? fileName : `${fileName}_${exportName}`;
    const label = isDefault ? 'its default export' : `export "${exportName}"`;
    const why = explainNotATool(value);
    if (why !== undefined) {
      results.push({ error: `${label} is not a tool: ${why}. Export tool({ description, args, execute }).` });
      continue;
    }
    if (!TOOL_NAME_PATTERN.test(name)) {
      results.push({
        error:
          `${label} would be the tool ${JSON.stringify(name)}, which is not allowed: names must be 1-64 characters ` +
          'of letters, digits, "_" or "-". Rename the file or the export.',
      });
      continue;
    }
    try {
      results.push({
        name,
        tool: toCodeRegisteredTool({ name, exported: value as CodeToolExport, workspace }),
      });
    } catch (error) {
      results.push({ error: `${label} is not a valid tool: ${messageOf(error)}.` });
    }
  }
  return results;
}

/**
 * SPEC CODE-1: the code tools of a list of folders, reloaded on demand. `refresh()` re-reads the folders and
 * re-bundles only files whose sources (the file or anything it imports relatively) changed, so a listing or a turn
 * sees edits without a restart; unchanged files keep their tool objects.
 */
export class CodeToolSet {
  readonly folders: readonly CodeToolFolder[];
  readonly #workspace: string;
  readonly #importTimeoutMs: number;
  readonly #files = new Map<string, LoadedFile>();
  #snapshot: CodeToolSnapshot = { entries: [], loadErrors: [], shadowed: [], signature: '', generation: 0 };
  #generation = 0;
  #running: Promise<CodeToolSnapshot> | undefined;
  #queued: Promise<CodeToolSnapshot> | undefined;

  constructor(options: CodeToolSetOptions) {
    this.folders = options.folders;
    this.#workspace = options.workspace;
    this.#importTimeoutMs = options.importTimeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS;
  }

  /** The last loaded state (empty before the first `refresh()`). */
  get snapshot(): CodeToolSnapshot {
    return this.#snapshot;
  }

  /** The folders and every source directory the loaded tools read: what a watcher should watch. */
  watchedPaths(): string[] {
    const paths = new Set(this.folders.map((folder) => folder.path));
    for (const loaded of this.#files.values()) for (const input of loaded.inputs) paths.add(dirname(input));
    return [...paths];
  }

  /** Reloads what changed. Concurrent calls share one load, plus at most one queued after it. */
  refresh(): Promise<CodeToolSnapshot> {
    if (this.#running === undefined) {
      this.#running = this.#load().finally(() => (this.#running = undefined));
      return this.#running;
    }
    this.#queued ??= this.#running.then(() => {
      this.#queued = undefined;
      return this.refresh();
    });
    return this.#queued;
  }

  async #load(): Promise<CodeToolSnapshot> {
    const byFolder = this.folders.map((folder) => ({ folder, files: listToolFiles(folder.path) }));
    const present = new Set(byFolder.flatMap(({ files }) => files));
    let removed = false;
    for (const file of this.#files.keys()) {
      if (present.has(file)) continue;
      this.#files.delete(file);
      removed = true;
    }

    const changed = [...present].filter((file) => {
      const loaded = this.#files.get(file);
      return loaded === undefined || stampOf(loaded.inputs) !== loaded.stamp;
    });
    if (changed.length > 0) await this.#loadFiles(changed, byFolder);
    if (changed.length > 0 || removed) this.#generation += 1;

    this.#snapshot = this.#resolvePrecedence(byFolder);
    return this.#snapshot;
  }

  async #loadFiles(
    files: readonly string[],
    byFolder: readonly { folder: CodeToolFolder; files: string[] }[],
  ): Promise<void> {
    const workspaceOf = new Map<string, string>();
    for (const { folder, files: folderFiles } of byFolder)
      for (const file of folderFiles) workspaceOf.set(file, folder.workspace ?? this.#workspace);
    // Stamped before bundling: an edit made while bundling is seen by the next refresh.
    const stampsBefore = new Map(files.map((file) => [file, stampOf([file])]));
    const bundles = await bundleCodeToolFiles(files);
    await Promise.all(
      bundles.map(async (bundled) => {
        const { file } = bundled;
        let tools: ToolOrError[];
        if (bundled.code === undefined) {
          tools = [{ error: `could not be compiled: ${bundled.error ?? 'unknown error'}` }];
        } else {
          try {
            const namespace = await importWithTimeout(bundled.code, this.#importTimeoutMs);
            tools = toolsOfModule(file, namespace, workspaceOf.get(file) ?? this.#workspace);
          } catch (error) {
            tools = [{ error: `failed while importing: ${messageOf(error)}` }];
          }
        }
        const otherInputs = bundled.inputs.filter((input) => input !== file);
        const stamp = stampsBefore.get(file)! + stampOf(otherInputs);
        this.#files.set(file, {
          stamp,
          inputs: [file, ...otherInputs],
          tools,
          signature: JSON.stringify(tools.map((entry) => ('error' in entry ? entry : entry.tool.definition))),
        });
      }),
    );
  }

  #resolvePrecedence(byFolder: readonly { folder: CodeToolFolder; files: string[] }[]): CodeToolSnapshot {
    const loadErrors: CodeToolLoadError[] = [];
    const shadowed: ShadowedCodeTool[] = [];
    const winners = new Map<string, RegistryEntry>();
    const ranks = [...new Set(byFolder.map(({ folder }) => folder.rank))].sort((a, b) => a - b);
    let signature = '';
    for (const rank of ranks) {
      const inRank = new Map<string, { tool: RegisteredTool; file: string }>();
      const duplicated = new Set<string>();
      for (const { folder, files } of byFolder) {
        if (folder.rank !== rank) continue;
        for (const file of files) {
          const loaded = this.#files.get(file);
          if (loaded === undefined) continue;
          signature += `${file}=${loaded.signature}\n`;
          for (const entry of loaded.tools) {
            if ('error' in entry) {
              loadErrors.push({ file, reason: entry.error });
              continue;
            }
            const previous = inRank.get(entry.name);
            if (previous !== undefined) {
              const reason = `${previous.file} and ${file} both define the tool "${entry.name}"; rename one of them.`;
              loadErrors.push({ file: previous.file, reason }, { file, reason });
              duplicated.add(entry.name);
              continue;
            }
            inRank.set(entry.name, { tool: entry.tool, file });
          }
        }
      }
      for (const [name, { tool, file }] of inRank) {
        if (duplicated.has(name)) continue;
        const winner = winners.get(name);
        if (winner !== undefined) {
          shadowed.push({ name, file, shadowedBy: winner.source.origin });
          continue;
        }
        winners.set(name, { tool, source: { kind: 'code', origin: file, file } });
      }
    }
    const entries = [...winners.values()].sort((a, b) =>
      a.tool.definition.name.localeCompare(b.tool.definition.name),
    );
    return { entries, loadErrors, shadowed, signature, generation: this.#generation };
  }
}
