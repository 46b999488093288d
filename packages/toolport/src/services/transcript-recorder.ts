import type {
  TranscriptMessage,
  TranscriptToolCall,
} from '../persistence/repositories/chat-message-repository.ts';
import type { StreamEvent } from '../providers/stream-events.ts';

/**
 * Turns one turn's PROV-3 events back into transcript messages: the user message, then per model step the assistant
 * message (its text and completed calls) followed by each final tool result. Partial results (one per generated image)
 * are for the live view only; the final result carries them all.
 */
export class TranscriptRecorder {
  readonly messages: TranscriptMessage[];
  #text = '';
  #calls: TranscriptToolCall[] = [];

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
        break;
      case 'tool_result':
        if (event.partial === true) break;
        this.#flushAssistant();
        this.messages.push({
          role: 'tool',
          toolCallId: event.id,
          toolName: event.name,
          content: event.output,
          isError: event.error !== undefined,
        });
        break;
      case 'turn_completed':
      case 'error':
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
