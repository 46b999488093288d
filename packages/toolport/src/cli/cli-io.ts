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
  /** Issue 16: whether stdin is a terminal, so `toolport chat` can ask before a tool a rule marks `ask`. */
  stdinIsTerminal?: boolean;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  stdoutIsTerminal: process.stdout.isTTY === true,
  stdinIsTerminal: process.stdin.isTTY === true,
};
