import type { StoredTranscriptMessage } from '../../persistence/repositories/chat-message-repository.ts';
import { formatStreamEventAsSse } from '../../providers/stream-events-sse.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { ChatIdParamsSchema } from '../schemas/chat-schemas.ts';
import { ChatMessageListResponseSchema, ChatTurnBodySchema } from '../schemas/chat-turn-schemas.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

function toMessageResponse(stored: StoredTranscriptMessage) {
  const { message } = stored;
  const base = { id: stored.id, position: stored.position, createdAt: stored.createdAt };
  if (message.role === 'tool')
    return {
      ...base,
      role: message.role,
      content: message.content,
      toolCallId: message.toolCallId,
      toolName: message.toolName,
      isError: message.isError,
    };
  if (message.role === 'assistant')
    return { ...base, role: message.role, content: message.content, toolCalls: message.toolCalls };
  return { ...base, role: message.role, content: message.content };
}

/**
 * PROV-3/PROV-4 over HTTP: a turn streams its normalized events as Server-Sent Events. The client closing the
 * connection (or the server shutting down) aborts the provider stream and every running tool.
 */
export function registerChatTurnRoutes(
  app: ToolportApp,
  services: ToolportServices,
  shutdownSignal: AbortSignal,
): void {
  app.post(
    '/api/chats/:chatId/turns',
    {
      schema: {
        summary: 'Run one agent turn in a chat, streamed as Server-Sent Events',
        description:
          'Each event is named after its PROV-3 type (`text_delta`, `tool_call_started`, `tool_call_arguments_delta`, ' +
          '`tool_call_completed`, `tool_result`, `approval_requested`, `turn_completed`, `error`) with the event as JSON ' +
          'data; an `approval_requested` call waits for `POST /api/chats/:id/approvals/:callId`. The stream ' +
          'ends after `turn_completed`. Errors found before the turn starts (unknown chat, no provider, missing key) ' +
          'are ordinary JSON error responses.',
        tags: ['chats'],
        params: ChatIdParamsSchema,
        body: ChatTurnBodySchema,
        response: {
          200: {
            description: 'text/event-stream of PROV-3 events',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const user = getAuthenticatedUser(request);
      const turn = await services.chatTurns.prepareTurn(user, request.params.chatId, request.body);
      const controller = new AbortController();
      const abort = (): void => controller.abort(new Error('The client closed the connection.'));
      const onShutdown = (): void => controller.abort(new Error('The server is shutting down.'));
      // `close` on the response fires when the connection goes away before the end (and harmlessly after it).
      reply.raw.on('close', abort);
      shutdownSignal.addEventListener('abort', onShutdown, { once: true });
      // Both may have happened while the turn was being prepared: a past `close` or abort is not replayed.
      if (reply.raw.destroyed) abort();
      if (shutdownSignal.aborted) onShutdown();
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      reply.raw.flushHeaders();
      let id = 0;
      try {
        for await (const event of turn.run(controller.signal)) {
          if (!reply.raw.destroyed) reply.raw.write(formatStreamEventAsSse(event, ++id));
        }
      } catch (error) {
        request.log.error({ err: error }, 'chat turn failed');
        if (!reply.raw.destroyed) {
          reply.raw.write(
            formatStreamEventAsSse(
              { type: 'error', code: 'internal_error', message: 'The turn failed inside toolport.' },
              id + 1,
            ),
          );
        }
      } finally {
        shutdownSignal.removeEventListener('abort', onShutdown);
        reply.raw.off('close', abort);
        if (!reply.raw.destroyed) reply.raw.end();
      }
    },
  );

  app.get(
    '/api/chats/:chatId/messages',
    {
      schema: {
        summary: "A chat's transcript: user messages, assistant text and tool calls, tool results",
        tags: ['chats'],
        params: ChatIdParamsSchema,
        response: { 200: ChatMessageListResponseSchema, ...errorResponses },
      },
    },
    async (request) => ({
      messages: (
        await services.chatTurns.listMessages(getAuthenticatedUser(request).id, request.params.chatId)
      ).map(toMessageResponse),
    }),
  );
}
