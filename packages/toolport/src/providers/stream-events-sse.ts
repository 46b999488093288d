import type { StreamEvent } from './stream-events.ts';

/**
 * One PROV-3 event as a Server-Sent Event for the chat-turn endpoint (`POST /api/chats/:id/turns`): the event name is
 * the PROV-3 type, the data its JSON (single line: JSON.stringify never emits raw newlines). Browsers'
 * `EventSource`/`fetch` readers dispatch on the name.
 */
export function formatStreamEventAsSse(event: StreamEvent, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
