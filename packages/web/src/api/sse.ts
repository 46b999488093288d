import { createParser } from 'eventsource-parser';
import { ApiError, authorizationHeaders } from './client';
import { markRevoked } from '../auth/token-store';

/** One PROV-3 event of a chat turn, as the server streams it (named after its `type`). */
export interface TurnEvent {
  type: string;
  [field: string]: unknown;
}

/**
 * POSTs a chat turn and yields its Server-Sent Events. EventSource cannot POST or send headers, so this reads the
 * fetch body. Errors found before the stream starts are JSON error responses and throw ApiError.
 */
export async function* streamTurn(
  chatId: string,
  body: { message: string; provider?: string; model?: string },
  signal: AbortSignal,
): AsyncGenerator<TurnEvent> {
  const response = await fetch(`/api/chats/${encodeURIComponent(chatId)}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...authorizationHeaders() },
    body: JSON.stringify(body),
    signal,
  });
  if (response.status === 401) markRevoked();
  if (!response.ok || response.body === null) {
    throw new ApiError(response.status, await response.json().catch(() => undefined));
  }
  const queue: TurnEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      try {
        const data = JSON.parse(message.data) as Record<string, unknown>;
        queue.push({ ...data, type: message.event ?? String(data.type ?? 'message') });
      } catch {
        queue.push({
          type: 'error',
          code: 'bad_event',
          message: `Unreadable event: ${message.data.slice(0, 200)}`,
        });
      }
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    reader.releaseLock();
  }
  while (queue.length > 0) yield queue.shift()!;
}
