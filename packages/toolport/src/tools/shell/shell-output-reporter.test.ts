import { describe, expect, it } from 'vitest';
import type { ToolLogLevel, ToolProgress } from '../../core/tool-types.ts';
import { createShellOutputReporter, MAX_LOGGED_LINE_CHARACTERS } from './shell-output-reporter.ts';

function recording() {
  const logs: Array<[ToolLogLevel, string]> = [];
  const progress: ToolProgress[] = [];
  const reporter = createShellOutputReporter({
    log: (level, message) => logs.push([level, message]),
    reportProgress: (update) => progress.push(update),
  });
  return { logs, progress, reporter };
}

describe('FS-6 shell output reporter (MCP-2 logging and progress)', () => {
  it('logs whole stderr lines across chunks, and the unterminated last one on finish', () => {
    const { logs, reporter } = recording();
    reporter.onOutput('stderr', Buffer.from('warn: fir'));
    reporter.onOutput('stderr', Buffer.from('st\r\n\nsecond\nthi'));
    reporter.onOutput('stdout', Buffer.from('not logged\n'));
    expect(logs).toEqual([
      ['info', 'warn: first'],
      ['info', 'second'],
    ]);
    reporter.finish();
    expect(logs.at(-1)).toEqual(['info', 'thi']);
  });

  it('decodes a UTF-8 character split between chunks', () => {
    const { logs, reporter } = recording();
    const bytes = Buffer.from('é\n');
    reporter.onOutput('stderr', bytes.subarray(0, 1));
    reporter.onOutput('stderr', bytes.subarray(1));
    expect(logs).toEqual([['info', 'é']]);
  });

  it('reports the bytes of output so far with the latest line', () => {
    const { progress, reporter } = recording();
    reporter.onOutput('stdout', Buffer.from('compiling a\ncompiling b\n'));
    reporter.onOutput('stderr', Buffer.from('x'));
    expect(progress).toEqual([
      { progress: 24, message: 'compiling b' },
      { progress: 25, message: 'x' },
    ]);
  });

  it('cuts a very long line instead of holding it back', () => {
    const { logs, reporter } = recording();
    reporter.onOutput('stderr', Buffer.from('y'.repeat(MAX_LOGGED_LINE_CHARACTERS * 2)));
    expect(logs).toHaveLength(1);
    expect(logs[0]?.[1]).toHaveLength(MAX_LOGGED_LINE_CHARACTERS + 1);
  });
});
