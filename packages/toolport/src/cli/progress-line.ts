import type { ToolProgress } from '../core/tool-types.ts';
import type { CliIo } from './cli-io.ts';

/** One status line on stderr, rewritten in place while something runs. */
export interface ProgressLine {
  /** The latest progress the tool reported (shown after the elapsed time). */
  report(progress: ToolProgress): void;
  /** Clears the line; call it before anything else is written to the terminal. */
  stop(): void;
}

const REFRESH_MS = 250;
const CLEAR_LINE = '\r\u001b[2K';
const NO_PROGRESS: ProgressLine = { report: () => {}, stop: () => {} };

function describe(progress: ToolProgress): string {
  const fraction =
    progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`;
  return progress.message === undefined ? fraction : `${progress.message} (${fraction})`;
}

/**
 * SPEC CLI-1: while a call runs, a terminal shows what is running and for how long (and any progress the tool
 * reports); when stderr is a pipe or a file nothing is written, so logs and scripts see only the result.
 */
export function startProgressLine(io: CliIo, label: string): ProgressLine {
  if (io.stderrIsTerminal !== true) return NO_PROGRESS;
  const started = Date.now();
  let detail = '';
  let stopped = false;
  const render = (): void => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    io.stderr(`${CLEAR_LINE}${label} ${seconds} s${detail === '' ? '' : ` · ${detail}`}`);
  };
  render();
  const timer = setInterval(render, REFRESH_MS);
  timer.unref();
  return {
    report: (progress) => {
      detail = describe(progress);
      if (!stopped) render();
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      io.stderr(CLEAR_LINE);
    },
  };
}
