import type { ToolCallOptions } from '../core/tool-runtime.ts';
import {
  TOOL_LOG_LEVELS,
  type ToolLogEntry,
  type ToolLogLevel,
  type ToolProgress,
} from '../core/tool-types.ts';

/*
 * MCP-2: what a tool reports while it runs, as MCP notifications — `notifications/message` for `context.log` (filtered
 * by the level the client set with `logging/setLevel`) and `notifications/progress` for `context.reportProgress` when
 * the call carried a progress token (throttled). Shared by the lean stdio server and the SDK-based `/mcp` server, so
 * this file must not import the SDK (the stdio path stays SDK-free at run time).
 */

/** Until the client sets a level: `info` and above (a tool's debug chatter only on request). */
export const DEFAULT_MCP_LOG_LEVEL: ToolLogLevel = 'info';
/** At most one progress notification per this many milliseconds per call (≤ 10/s); the latest value wins. */
export const MCP_PROGRESS_INTERVAL_MS = 100;
/** Per call: past this, one notice says the rest were dropped (a tool printing megabytes must not flood the client). */
export const MAX_MCP_LOG_MESSAGES_PER_CALL = 1_000;

export function isMcpLogLevel(value: unknown): value is ToolLogLevel {
  return typeof value === 'string' && (TOOL_LOG_LEVELS as readonly string[]).includes(value);
}

function severity(level: ToolLogLevel): number {
  return TOOL_LOG_LEVELS.indexOf(level);
}

/** A client's chosen minimum level (one per stdio connection; one per user for the stateless `/mcp`). */
export interface McpLogLevelStore {
  get(): ToolLogLevel;
  set(level: ToolLogLevel): void;
}

export function createMcpLogLevelStore(initial: ToolLogLevel = DEFAULT_MCP_LOG_LEVEL): McpLogLevelStore {
  let level = initial;
  return {
    get: () => level,
    set: (next) => {
      level = next;
    },
  };
}

export type McpProgressToken = string | number;

export interface McpNotification {
  method: 'notifications/message' | 'notifications/progress';
  params: Record<string, unknown>;
}

export interface McpCallNotifierOptions {
  toolName: string;
  progressToken: McpProgressToken | undefined;
  logLevel: McpLogLevelStore;
  send(notification: McpNotification): void;
  intervalMs?: number;
}

export interface McpCallNotifier {
  /** For `runtime.execute`'s options. */
  readonly callOptions: Pick<ToolCallOptions, 'onProgress' | 'onLog'>;
  /** Sends the latest held-back progress and stops the timer: call it before the result is sent. */
  finish(): void;
}

/**
 * One tool call's notifications. Progress goes out at once when the interval has passed, else the latest value waits
 * for the interval's end (leading and trailing edges), so a client sees both the first and the last state; values
 * that do not increase are dropped (MCP: progress must increase with each notification).
 */
export function createMcpCallNotifier(options: McpCallNotifierOptions): McpCallNotifier {
  const { progressToken, send, toolName } = options;
  const intervalMs = options.intervalMs ?? MCP_PROGRESS_INTERVAL_MS;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let lastProgress = Number.NEGATIVE_INFINITY;
  let pending: ToolProgress | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let finished = false;
  let logged = 0;

  const sendProgress = (progress: ToolProgress): void => {
    lastSentAt = performance.now();
    lastProgress = progress.progress;
    send({ method: 'notifications/progress', params: { progressToken, ...progress } });
  };
  const flush = (): void => {
    timer = undefined;
    const next = pending;
    pending = undefined;
    if (next !== undefined) sendProgress(next);
  };

  const onProgress =
    progressToken === undefined
      ? undefined
      : (progress: ToolProgress): void => {
          if (finished || !(progress.progress > lastProgress)) return;
          const wait = lastSentAt + intervalMs - performance.now();
          if (wait <= 0 && timer === undefined) return sendProgress(progress);
          pending = progress;
          timer ??= setTimeout(flush, Math.max(0, wait));
        };

  const onLog = (entry: ToolLogEntry): void => {
    if (finished || severity(entry.level) < severity(options.logLevel.get())) return;
    logged += 1;
    if (logged > MAX_MCP_LOG_MESSAGES_PER_CALL + 1) return;
    const dropped = logged === MAX_MCP_LOG_MESSAGES_PER_CALL + 1;
    send({
      method: 'notifications/message',
      params: {
        level: dropped ? 'notice' : entry.level,
        logger: toolName,
        data: dropped
          ? `More than ${MAX_MCP_LOG_MESSAGES_PER_CALL} messages in this call: the rest were dropped.`
          : entry.message,
      },
    });
  };

  return {
    callOptions: { onLog, ...(onProgress === undefined ? {} : { onProgress }) },
    finish() {
      if (finished) return;
      if (timer !== undefined) clearTimeout(timer);
      flush();
      finished = true;
    },
  };
}
