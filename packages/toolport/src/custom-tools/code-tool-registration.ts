import { isToolportError } from '../core/errors.ts';
import type { RegistryEntry, ToolRegistry } from '../core/tool-registry.ts';
import { hasCodeToolFiles } from './code-tool-discovery.ts';
import type { CodeToolFolder } from './code-tool-folders.ts';
import type {
  CodeToolLoadError,
  CodeToolSet,
  CodeToolSetOptions,
  CodeToolSnapshot,
  ShadowedCodeTool,
} from './code-tool-set.ts';

/*
 * The light entry to code tools for the CLI and `toolport mcp`: nothing here imports zod or esbuild, and the loader
 * is imported only when a folder holds a tool file.
 */

export const EMPTY_CODE_TOOL_SNAPSHOT: CodeToolSnapshot = Object.freeze({
  entries: [],
  loadErrors: [],
  shadowed: [],
  signature: '',
  generation: 0,
});

export async function openCodeToolSet(options: CodeToolSetOptions): Promise<CodeToolSet> {
  const { CodeToolSet } = await import('./code-tool-set.ts');
  return new CodeToolSet(options);
}

/** Loads the folders' code tools once; without any tool file this costs a few `readdir`s. */
export async function loadCodeToolSnapshot(
  folders: readonly CodeToolFolder[],
  workspace: string,
): Promise<CodeToolSnapshot> {
  if (!hasCodeToolFiles(folders)) return EMPTY_CODE_TOOL_SNAPSHOT;
  return (await openCodeToolSet({ folders, workspace })).refresh();
}

export interface CodeToolRegistration {
  /** Built-ins replaced by a code tool of the same name, and code tools hidden by a stronger folder's. */
  shadowed: ShadowedCodeTool[];
  loadErrors: CodeToolLoadError[];
}

/**
 * Puts the snapshot's tools into `registry` as code tools, replacing the code tools registered before. A code tool
 * named like a built-in replaces it (enabled by default, as a code tool); that is noted in `shadowed`.
 */
export function registerCodeTools(registry: ToolRegistry, snapshot: CodeToolSnapshot): CodeToolRegistration {
  registry.unregisterCustomWhere((entry) => entry.source.kind === 'code');
  const shadowed: ShadowedCodeTool[] = [];
  const loadErrors = [...snapshot.loadErrors];
  for (const entry of snapshot.entries) {
    const name = entry.tool.definition.name;
    const file = entry.source.file ?? entry.source.origin;
    if (registry.getEntry(name)?.source.kind === 'builtin')
      shadowed.push({ name, file: 'builtin', shadowedBy: file });
    try {
      registry.register(entry.tool, entry.source);
    } catch (error) {
      if (!isToolportError(error)) throw error;
      loadErrors.push({ file, reason: error.message });
    }
  }
  shadowed.push(...snapshot.shadowed);
  return { shadowed, loadErrors };
}

/** Built-ins (from `entries`) that a code tool of the snapshot replaces, for listings that do not use a registry. */
export function builtinsShadowedBy(
  entries: readonly RegistryEntry[],
  snapshot: CodeToolSnapshot,
): ShadowedCodeTool[] {
  const builtins = new Set(
    entries.filter((entry) => entry.source.kind === 'builtin').map((entry) => entry.tool.definition.name),
  );
  return snapshot.entries
    .filter((entry) => builtins.has(entry.tool.definition.name))
    .map((entry) => ({
      name: entry.tool.definition.name,
      file: 'builtin',
      shadowedBy: entry.source.file ?? entry.source.origin,
    }));
}
