import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createMcpCallNotifier,
  createMcpLogLevelStore,
  MAX_MCP_LOG_MESSAGES_PER_CALL,
  MCP_PROGRESS_INTERVAL_MS,
  type McpNotification,
} from './mcp-logging.ts';

describe('MCP-2 call notifier (logging and throttled progress)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const notifierWith = ({ progressToken }: { progressToken?: string } = { progressToken: 'tok' }) => {
    const sent: McpNotification[] = [];
    const logLevel = createMcpLogLevelStore();
    const notifier = createMcpCallNotifier({
      toolName: 'bash',
      progressToken,
      logLevel,
      send: (notification) => sent.push(notification),
    });
    const progressValues = () =>
      sent.filter((n) => n.method === 'notifications/progress').map((n) => n.params.progress);
    return { sent, logLevel, notifier, progressValues };
  };

  it('sends at most one progress per interval: the first at once, the latest at the end of the interval', () => {
    const { notifier, progressValues, sent } = notifierWith();
    for (let value = 1; value <= 50; value += 1) notifier.callOptions.onProgress?.({ progress: value });
    expect(progressValues()).toEqual([1]);
    vi.advanceTimersByTime(MCP_PROGRESS_INTERVAL_MS);
    expect(progressValues()).toEqual([1, 50]);
    expect(sent[1]?.params).toEqual({ progressToken: 'tok', progress: 50 });
    // A burst over one second yields about ten notifications, never one per report.
    for (let step = 1; step <= 100; step += 1) {
      vi.advanceTimersByTime(10);
      notifier.callOptions.onProgress?.({ progress: 50 + step });
    }
    expect(progressValues().length).toBeLessThanOrEqual(2 + 11);
  });

  it('flushes the held-back progress on finish and sends nothing afterwards', () => {
    const { notifier, progressValues } = notifierWith();
    notifier.callOptions.onProgress?.({ progress: 1 });
    notifier.callOptions.onProgress?.({ progress: 2, total: 2 });
    notifier.finish();
    expect(progressValues()).toEqual([1, 2]);
    notifier.callOptions.onProgress?.({ progress: 3 });
    vi.runAllTimers();
    expect(progressValues()).toEqual([1, 2]);
  });

  it('drops progress that does not increase', () => {
    const { notifier, progressValues } = notifierWith();
    notifier.callOptions.onProgress?.({ progress: 5 });
    vi.advanceTimersByTime(MCP_PROGRESS_INTERVAL_MS);
    notifier.callOptions.onProgress?.({ progress: 5 });
    notifier.callOptions.onProgress?.({ progress: 4 });
    vi.runAllTimers();
    expect(progressValues()).toEqual([5]);
  });

  it('offers no progress callback without a progress token', () => {
    expect(notifierWith({}).notifier.callOptions.onProgress).toBeUndefined();
  });

  it("filters log messages below the client's level, read at send time", () => {
    const { notifier, logLevel, sent } = notifierWith();
    notifier.callOptions.onLog?.({ level: 'debug', message: 'hidden by default' });
    notifier.callOptions.onLog?.({ level: 'info', message: 'shown' });
    logLevel.set('error');
    notifier.callOptions.onLog?.({ level: 'warning', message: 'hidden' });
    notifier.callOptions.onLog?.({ level: 'critical', message: 'shown too' });
    expect(sent).toEqual([
      { method: 'notifications/message', params: { level: 'info', logger: 'bash', data: 'shown' } },
      { method: 'notifications/message', params: { level: 'critical', logger: 'bash', data: 'shown too' } },
    ]);
  });

  it('caps log messages per call with one notice', () => {
    const { notifier, sent } = notifierWith();
    for (let line = 0; line < MAX_MCP_LOG_MESSAGES_PER_CALL + 50; line += 1)
      notifier.callOptions.onLog?.({ level: 'info', message: `line ${line}` });
    expect(sent).toHaveLength(MAX_MCP_LOG_MESSAGES_PER_CALL + 1);
    expect(sent.at(-1)?.params).toMatchObject({ level: 'notice', data: expect.stringContaining('dropped') });
  });
});
