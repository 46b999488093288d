import { ToolportError } from './errors.ts';
import type { RegisteredTool } from './tool-types.ts';

/** The strictest provider rule for tool names (OpenAI, Anthropic, Gemini all accept this set). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export type ToolSourceKind = 'builtin' | 'custom' | 'code' | 'workspace' | 'mcp' | 'agent' | 'http';

/**
 * Where a tool came from: a built-in, a custom-tool config row, a code-tool file (CODE-1), an MCP server, an agent
 * tool row (AGENT-1) or an HTTP tool row (HTTP-1).
 */
export interface ToolSource {
  kind: ToolSourceKind;
  /** The file, config id or server that defined it; named in duplicate errors. */
  origin: string;
  /** A code tool's file (absolute path). */
  file?: string;
}

export interface RegistryEntry {
  tool: RegisteredTool;
  source: ToolSource;
}

export function assertValidToolName(name: string, origin = 'tool definition'): void {
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ToolportError(
      'validation_failed',
      `Tool name ${JSON.stringify(name)} (from ${origin}) is not allowed: names must be 1-64 characters of ` +
        'letters, digits, "_" or "-" (the strictest provider rule). Rename the tool.',
      { details: { name, origin } },
    );
  }
}

/** What executeTool needs of a registry: lookup by name. */
export interface ToolLookup {
  get(name: string): RegisteredTool | undefined;
}

/**
 * Tools by name. A custom tool shadows a built-in of the same name (SPEC D5); two custom tools of one name from the
 * same source kind are an error naming both origins.
 */
export class ToolRegistry implements ToolLookup {
  readonly #builtins = new Map<string, RegistryEntry>();
  readonly #customs = new Map<string, RegistryEntry>();
  #sorted: RegistryEntry[] | undefined;

  register(tool: RegisteredTool, source: ToolSource = { kind: 'builtin', origin: 'builtin' }): void {
    const name = tool.definition.name;
    assertValidToolName(name, source.origin);
    const table = source.kind === 'builtin' ? this.#builtins : this.#customs;
    const existing = table.get(name);
    if (existing !== undefined) {
      throw new ToolportError(
        'conflict',
        `Duplicate tool name ${JSON.stringify(name)}: defined by ${existing.source.origin} and by ${source.origin}. ` +
          'Rename one of them.',
        { details: { name, origins: [existing.source.origin, source.origin] } },
      );
    }
    table.set(name, { tool, source });
    this.#sorted = undefined;
  }

  /** Removes a custom tool (reloading a file or config). Built-ins stay registered for the process lifetime. */
  unregisterCustom(name: string): boolean {
    this.#sorted = undefined;
    return this.#customs.delete(name);
  }

  /** Removes every custom tool whose origin matches, so a loader can reload its source atomically. */
  unregisterCustomWhere(predicate: (entry: RegistryEntry) => boolean): void {
    for (const [name, entry] of this.#customs) if (predicate(entry)) this.#customs.delete(name);
    this.#sorted = undefined;
  }

  get(name: string): RegisteredTool | undefined {
    return (this.#customs.get(name) ?? this.#builtins.get(name))?.tool;
  }

  getEntry(name: string): RegistryEntry | undefined {
    return this.#customs.get(name) ?? this.#builtins.get(name);
  }

  has(name: string): boolean {
    return this.#customs.has(name) || this.#builtins.has(name);
  }

  /** Every effective tool (customs shadowing built-ins), sorted by name for deterministic listings. */
  list(): RegisteredTool[] {
    return this.listEntries().map((entry) => entry.tool);
  }

  /** A fresh array each call; the sorted merge is kept until the next registration change (issue 11: per request). */
  listEntries(): RegistryEntry[] {
    if (this.#sorted === undefined) {
      const merged = new Map(this.#builtins);
      for (const [name, entry] of this.#customs) merged.set(name, entry);
      this.#sorted = [...merged.values()].sort((a, b) =>
        a.tool.definition.name.localeCompare(b.tool.definition.name),
      );
    }
    return this.#sorted.slice();
  }
}

/** The process-wide registry built-ins register into at import (seed "Ciclo De Vida": registerTool). */
export const defaultToolRegistry = new ToolRegistry();

export function registerTool(tool: RegisteredTool, source?: ToolSource): void {
  defaultToolRegistry.register(tool, source);
}

export function getRegisteredTool(name: string): RegisteredTool | undefined {
  return defaultToolRegistry.get(name);
}
