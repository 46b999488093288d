import { StringDecoder } from 'node:string_decoder';
import type { ToolContext } from '../../core/tool-types.ts';

/** Longer stderr lines are cut: a log notification is a status line, the whole text is in the result. */
export const MAX_LOGGED_LINE_CHARACTERS = 2_000;
const MAX_PROGRESS_MESSAGE_CHARACTERS = 200;

export interface ShellOutputReporter {
  onOutput(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  /** Logs the last stderr line when it had no newline. */
  finish(): void;
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/**
 * MCP-2: what a running shell command shows, as it happens — every stderr line through `context.log` (level `info`:
 * programs write progress and warnings there, not only errors) and the output so far through
 * `context.reportProgress` (bytes received, the latest line as the message). Throttling and caps are the receiver's
 * job (`mcp/mcp-logging.ts`).
 */
export function createShellOutputReporter(
  context: Pick<ToolContext, 'log' | 'reportProgress'>,
): ShellOutputReporter {
  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  let pendingStderr = '';
  let bytes = 0;

  const logLine = (line: string): void => {
    if (line.trim() === '') return;
    context.log('info', cut(line, MAX_LOGGED_LINE_CHARACTERS));
  };

  return {
    onOutput(stream, chunk) {
      bytes += chunk.length;
      const text = decoders[stream].write(chunk);
      if (stream === 'stderr') {
        const lines = (pendingStderr + text).split(/\r?\n/);
        pendingStderr = lines.pop() ?? '';
        // A line longer than the cap is logged in pieces rather than held back forever.
        if (pendingStderr.length > MAX_LOGGED_LINE_CHARACTERS) {
          lines.push(pendingStderr);
          pendingStderr = '';
        }
        for (const line of lines) logLine(line);
      }
      const lastLine = text
        .split(/\r?\n/)
        .filter((line) => line.trim() !== '')
        .at(-1);
      context.reportProgress({
        progress: bytes,
        message:
          lastLine === undefined
            ? `${bytes} bytes of output`
            : cut(lastLine.trim(), MAX_PROGRESS_MESSAGE_CHARACTERS),
      });
    },
    finish() {
      logLine(pendingStderr + decoders.stderr.end());
      pendingStderr = '';
    },
  };
}
