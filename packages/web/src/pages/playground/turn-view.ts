import type { TurnEvent } from '../../api/sse';

/** What the chat panel draws from a turn's events, folded in order. */
export type TurnItem =
  | { kind: 'user'; text: string }
  | { kind: 'text'; text: string }
  | {
      kind: 'tool';
      id: string;
      name: string;
      arguments: string;
      state: 'started' | 'arguments streaming' | 'completed' | 'result' | 'error';
      output?: string;
      result?: unknown;
      error?: { code?: unknown; message?: unknown };
    }
  | { kind: 'approval'; id: string; detail: Record<string, unknown> }
  | { kind: 'error'; message: string }
  | { kind: 'done'; stopReason: string; message?: string };

export interface EventLogLine {
  type: string;
  label: string;
  count: number;
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

export function applyTurnEvent(items: TurnItem[], event: TurnEvent): TurnItem[] {
  const next = [...items];
  const last = next[next.length - 1];
  const toolIndex = (id: unknown) => next.findIndex((item) => item.kind === 'tool' && item.id === id);
  switch (event.type) {
    case 'text_delta':
      if (last?.kind === 'text') next[next.length - 1] = { ...last, text: last.text + text(event.delta) };
      else next.push({ kind: 'text', text: text(event.delta) });
      return next;
    case 'tool_call_started':
      next.push({
        kind: 'tool',
        id: text(event.id),
        name: text(event.name),
        arguments: '',
        state: 'started',
      });
      return next;
    case 'tool_call_arguments_delta': {
      const index = toolIndex(event.id);
      const item = next[index];
      if (item?.kind === 'tool')
        next[index] = {
          ...item,
          arguments: item.arguments + text(event.delta),
          state: 'arguments streaming',
        };
      return next;
    }
    case 'tool_call_completed': {
      const index = toolIndex(event.id);
      const item = next[index];
      const completed = { arguments: text(event.arguments), state: 'completed' as const };
      if (item?.kind === 'tool') next[index] = { ...item, ...completed };
      else next.push({ kind: 'tool', id: text(event.id), name: text(event.name), ...completed });
      return next;
    }
    case 'tool_result': {
      const index = toolIndex(event.id);
      const item = next[index];
      if (item?.kind !== 'tool') return next;
      if (event.partial === true) {
        next[index] = { ...item, output: text(event.output), result: event.result };
        return next;
      }
      next[index] = {
        ...item,
        state: event.error === undefined ? 'result' : 'error',
        output: text(event.output),
        result: event.result,
        ...(event.error === undefined ? {} : { error: event.error as { code?: unknown; message?: unknown } }),
      };
      return next;
    }
    case 'approval_requested':
      next.push({ kind: 'approval', id: text(event.id ?? event.callId), detail: event });
      return next;
    case 'error':
      next.push({ kind: 'error', message: `${text(event.message)} (${text(event.code)})` });
      return next;
    case 'turn_completed':
      next.push({
        kind: 'done',
        stopReason: text(event.stopReason),
        ...(typeof event.message === 'string' ? { message: event.message } : {}),
      });
      return next;
    default:
      return next;
  }
}

/** The event log: one line per event, runs of argument fragments of one call folded into one line. */
export function appendToLog(log: EventLogLine[], event: TurnEvent): EventLogLine[] {
  const label = `${event.type}${event.name === undefined ? '' : ` ${text(event.name)}`}${event.id === undefined ? '' : ` #${text(event.id)}`}`;
  const last = log[log.length - 1];
  if (last !== undefined && event.type === 'text_delta' && last.type === 'text_delta') {
    return [...log.slice(0, -1), { ...last, count: last.count + 1 }];
  }
  if (last !== undefined && event.type === 'tool_call_arguments_delta' && last.label === label) {
    return [...log.slice(0, -1), { ...last, count: last.count + 1 }];
  }
  return [...log, { type: event.type, label, count: 1 }];
}
