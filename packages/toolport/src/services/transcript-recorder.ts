import type {
  TranscriptMessage,
  TranscriptToolCall,
} from '../persistence/repositories/chat-message-repository.ts';
import { failedTurnNote } from '../providers/agent-loop.ts';
import type { StreamEvent } from '../providers/stream-events.ts';

/**
 * Turns one turn's PROV-3 events back into transcript messages: the user message, then per model step the assistant
 * message (its text and completed calls) followed by each final tool result. Partial results (one per generated image)
 * are for the live view only; the final result carries them all. A provider failure is recorded as an assistant
 * message noting it (`failedTurnNote`), never as a dangling user message.
 */
export class TranscriptRecorder {
  readonly messages: TranscriptMessage[];
  #text = '';
  #calls: TranscriptToolCall[] = [];
  readonly #completed = new Set<string>();

  constructor(userMessage: string) {
    this.messages = [{ role: 'user', content: userMessage }];
  }

  observe(event: StreamEvent): void {
    // A sub-agent's events belong to its delegating call's result, not to this conversation (AGENT-1).
    if (event.parentCallId !== undefined) return;
    switch (event.type) {
      case 'text_delta':
        this.#text += event.delta;
        break;
      case 'tool_call_completed':
        this.#calls.push({ id: event.id, name: event.name, arguments: event.arguments });
        this.#completed.add(event.id);
        break;
      case 'tool_result':
        // A call the provider announced but never completed (it failed mid-stream) has no call to answer.
        if (event.partial === true || !this.#completed.has(event.id)) break;
        this.#flushAssistant();
        this.messages.push({
          role: 'tool',
          toolCallId: event.id,
          toolName: event.name,
          content: event.output,
          isError: event.error !== undefined,
        });
        break;
      case 'error':
        // The failure closes the turn as an assistant message, so the next user message follows one (every provider
        // wants the roles to alternate) and the transcript shows what happened; any text streamed before stays.
        this.#text =
          this.#text === ''
            ? failedTurnNote(event.message)
            : `${this.#text}\n\n${failedTurnNote(event.message)}`;
        this.#flushAssistant();
        break;
      case 'turn_completed':
        this.#flushAssistant();
        break;
      default:
        break;
    }
  }

  #flushAssistant(): void {
    if (this.#text === '' && this.#calls.length === 0) return;
    this.messages.push({ role: 'assistant', content: this.#text, toolCalls: this.#calls });
    this.#text = '';
    this.#calls = [];
  }
}
