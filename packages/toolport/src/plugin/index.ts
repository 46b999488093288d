/**
 * `toolport/plugin` — what code-tool authors import (CODE-1), shaped like `@opencode-ai/plugin` so opencode tool files
 * load unchanged (the loader aliases that package to this module). It must stay light: no database, server or
 * provider SDK code (a test checks the import graph); zod is the one package it brings.
 */
import { z } from 'zod';

export type {
  JsonSchema,
  ToolAnnotations,
  ToolContext as RuntimeToolContext,
  ToolDefinition,
  ToolProgress,
} from '../core/tool-types.ts';
export { ToolArgumentError, ToolportError, isToolportError } from '../core/errors.ts';
export { z };

/** How `context.run` ended, as the shell tools report it: a non-zero exit is a result, not an error. */
export type ToolRunTermination = 'exited' | 'timed_out' | 'aborted' | 'signalled';

export interface ToolRunOptions {
  /** Directory to run in: absolute, or relative to `context.directory` (the default). */
  cwd?: string;
  /** Added to the minimal environment every child gets (PATH, HOME, LANG, TERM). */
  env?: Record<string, string>;
  /** The program's own limit; never longer than the call's remaining time budget. */
  timeoutMs?: number;
  /** Bytes kept from stdout and from stderr each (default 100 KiB, at most 1 MiB); the rest is dropped. */
  maxOutputBytes?: number;
}

export interface ToolRunResult {
  stdout: string;
  stderr: string;
  /** null when the process was ended by a signal. */
  exitCode: number | null;
  signal: string | null;
  termination: ToolRunTermination;
  /** True when stdout or stderr produced more than `maxOutputBytes`. */
  truncated: boolean;
  durationMs: number;
}

/** opencode's four levels, plus MCP's (RFC 5424) for tools written for toolport; `warn` is MCP's `warning`. */
export type ToolLogLevel =
  'debug' | 'info' | 'notice' | 'warn' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** What `execute` receives besides its arguments (opencode's fields, plus toolport's `run`, `log` and `progress`). */
export interface ToolContext {
  /** The calling agent's id, or `"default"`. */
  agent: string;
  /** The chat (opencode: session) id. */
  sessionID: string;
  /** Unique per call. */
  messageID: string;
  callID: string;
  /** The chat's working directory, else the workspace the tool was loaded for. */
  directory: string;
  /** The git root above `directory`, or `directory` itself. */
  worktree: string;
  /** Fires on the call's timeout and on cancellation; pass it on to `fetch` and long loops. */
  abort: AbortSignal;
  /**
   * Runs a program (no shell) with the call's abort, process-tree kill, output caps and the shell tools' minimal
   * environment. Resolves on any exit code; rejects only when the program cannot be started.
   */
  run(command: string, args?: readonly string[], options?: ToolRunOptions): Promise<ToolRunResult>;
  /**
   * Writes to toolport's log (stderr for the CLI and `toolport mcp`, the server log for `toolport serve`) and, while
   * the call runs, to an MCP client as `notifications/message` (at or above the level it set).
   */
  log(level: ToolLogLevel, message: string): void;
  /** Progress for MCP clients and the UI: `done` of `total` units. */
  progress(done: number, total?: number, message?: string): void;
  /** opencode's per-call title/metadata; toolport records it in the log. */
  metadata(input: { title?: string; metadata?: Record<string, unknown> }): void;
  /** opencode's permission prompt: toolport has none, so this rejects (enable or disable the tool instead). */
  ask(input: unknown): Promise<void>;
}

/** Argument schemas by name: zod schemas, as opencode writes them. */
export type ToolArgsShape = z.ZodRawShape;

export type ToolArgs<Args extends ToolArgsShape> = z.output<z.ZodObject<Args>>;

export interface ToolInput<Args extends ToolArgsShape = ToolArgsShape> {
  description: string;
  args: Args;
  /** Returns a string (sent as it is) or any JSON-serializable value (sent as JSON). A throw is `execution_failed`. */
  execute(args: ToolArgs<Args>, context: ToolContext): unknown;
}

/**
 * Declares a code tool. The default export of `.toolport/tools/<file>.ts` becomes the tool `<file>`; a named export
 * `x` becomes `<file>_x`. Returns its input: a plain object of the same shape works the same.
 *
 * @example
 * ```ts
 * import { tool } from 'toolport/plugin';
 *
 * export const add = tool({
 *   description: 'Add two numbers',
 *   args: { a: tool.schema.number().describe('First number'), b: tool.schema.number() },
 *   async execute({ a, b }) {
 *     return a + b;
 *   },
 * });
 * ```
 */
export function tool<Args extends ToolArgsShape>(input: ToolInput<Args>): ToolInput<Args> {
  return input;
}
/** zod (v4), so a tool file needs no zod of its own. */
tool.schema = z;

export type ToolDefinitionInput = ReturnType<typeof tool>;
