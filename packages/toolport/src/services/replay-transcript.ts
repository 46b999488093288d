import type {
  TranscriptMessage,
  TranscriptToolCall,
} from '../persistence/repositories/chat-message-repository.ts';
import { unansweredTurnNote } from '../providers/agent-loop.ts';
import { argumentsFragmentText } from '../providers/arguments-as-object.ts';
import type {
  CompletedToolCall,
  ProviderSession,
  ToolResultForModel,
} from '../providers/provider-adapter.ts';

const NOT_RUN_OUTPUT = JSON.stringify({
  error: { code: 'aborted', message: 'Not run: the turn ended before this call ran.' },
});

/** A stored call whose `arguments` is an object (as some servers send them) replays as its JSON text. */
function withTextArguments(call: TranscriptToolCall): CompletedToolCall {
  const raw: unknown = call.arguments;
  return { ...call, arguments: argumentsFragmentText(raw) ?? '' };
}

/**
 * Feeds a persisted transcript into a fresh session in the provider's own format, so the next turn continues the
 * conversation. Every replayed call is answered in call order; a call the transcript has no result for (a cancelled
 * or limit-stopped turn) is answered as not run, because every provider rejects a history with an unanswered call.
 */
export function replayTranscript(session: ProviderSession, messages: readonly TranscriptMessage[]): void {
  // True after a user message or tool results: the model's turn comes next.
  let awaitingAssistant = false;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (message.role === 'user') {
      // A turn that ended unanswered (cancelled, stopped at its limit, or failed before failures were recorded) would
      // put two user turns in a row, which providers refuse or merge: close it with a note first.
      if (awaitingAssistant) closeUnansweredTurn(session);
      session.addUserMessage(message.content);
      awaitingAssistant = true;
      continue;
    }
    if (message.role === 'tool') continue; // Results are consumed with the assistant message that made the calls.
    if (session.addAssistantMessage === undefined) continue;
    if (message.content === '' && message.toolCalls.length === 0) continue; // No answer; nothing to replay.
    session.addAssistantMessage(message.content, message.toolCalls.map(withTextArguments));
    awaitingAssistant = message.toolCalls.length > 0;
    if (message.toolCalls.length === 0) continue;
    const results = new Map<string, ToolResultForModel>();
    while (messages[index + 1]?.role === 'tool') {
      index += 1;
      const result = messages[index] as Extract<TranscriptMessage, { role: 'tool' }>;
      results.set(result.toolCallId, {
        callId: result.toolCallId,
        toolName: result.toolName,
        output: result.content,
        isError: result.isError,
      });
    }
    session.addToolResults(
      message.toolCalls.map(
        (call) =>
          results.get(call.id) ?? {
            callId: call.id,
            toolName: call.name,
            output: NOT_RUN_OUTPUT,
            isError: true,
          },
      ),
    );
  }
  // The turn about to start adds a user message: the last replayed turn must end with the model's part.
  if (awaitingAssistant && messages.length > 0) closeUnansweredTurn(session);
}

function closeUnansweredTurn(session: ProviderSession): void {
  session.addAssistantMessage?.(unansweredTurnNote('the turn ended before the model answered.'), []);
}
