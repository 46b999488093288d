import type { ToolportLogger } from '../core/tool-types.ts';

/** Where a command writes. Injected so tests can run commands in-process and read what they printed. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Interactive commands (chat) read lines from here; defaults to process.stdin. */
  stdin?: NodeJS.ReadableStream;
  /** Whether stdout is a terminal: chat then streams everything there, else only the final answer. */
  stdoutIsTerminal?: boolean;
  /** Whether stderr is a terminal: long calls then show a progress line there (CLI-1). */
  stderrIsTerminal?: boolean;
  /** Issue 16: whether stdin is a terminal, so `toolport chat` can ask before a tool a rule marks `ask`. */
  stdinIsTerminal?: boolean;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  stdoutIsTerminal: process.stdout.isTTY === true,
  stderrIsTerminal: process.stderr.isTTY === true,
  stdinIsTerminal: process.stdin.isTTY === true,
};

/**
 * Log lines on stderr (stdout carries a command's result or the MCP protocol): `prefix: level message {fields}`.
 * Levels below `minimum` are dropped; debug always is.
 */
export function createStderrLogger(
  io: CliIo,
  prefix: string,
  minimum: 'info' | 'warn' = 'info',
): ToolportLogger {
  const write = (level: string) => (object: Record<string, unknown>, message?: string) =>
    io.stderr(`${prefix}: ${level} ${message ?? ''} ${JSON.stringify(object)}\n`);
  const ignore = (): void => {};
  return {
    debug: ignore,
    info: minimum === 'info' ? write('info') : ignore,
    warn: write('warn'),
    error: write('error'),
  };
}
