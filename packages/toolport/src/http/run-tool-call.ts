import type { FastifyReply } from 'fastify';
import { httpStatusForErrorCode } from '../core/error-codes.ts';
import type { UserRecord } from '../persistence/repositories/user-repository.ts';
import type { ToolportServices } from '../services/toolport-services.ts';
import { errorBody, type ErrorBody } from './plugins/error-handler.ts';

export interface ToolCallResponse {
  callId: string;
  toolName: string;
  result: unknown;
  output: string;
  truncated: boolean;
  durationMs: number;
  logs?: string;
}

/**
 * One tool call on behalf of an HTTP caller, through getEnabledToolRuntime exactly as a turn would run it. Success is
 * the response body; a tool error sets the status of its code and returns the common error body. `shutdownSignal`
 * aborts the call when the server stops; a client that disconnects aborts its own call.
 */
export async function runToolCall(
  services: ToolportServices,
  user: UserRecord,
  call: { toolName: string; args: unknown; chatId?: string | undefined },
  reply: FastifyReply,
  shutdownSignal: AbortSignal,
): Promise<ToolCallResponse | ErrorBody> {
  const chat = call.chatId === undefined ? undefined : await services.chats.get(user.id, call.chatId);
  const agent =
    chat?.agentId === null || chat?.agentId === undefined
      ? undefined
      : await services.repositories.agents.get(user.id, chat.agentId);
  // Outside a chat the runtime is reused while nothing it was built from changed (issue 11).
  const runtime =
    chat === undefined
      ? await services.toolRuntime.getReusableRuntime(user, { origin: 'api' })
      : await services.toolRuntime.getEnabledToolRuntime(user, chat, agent, { origin: 'api' });

  const disconnect = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) disconnect.abort(new Error('client disconnected'));
  };
  reply.raw.once('close', onClose);
  try {
    const outcome = await runtime.execute(
      { toolName: call.toolName, arguments: call.args ?? {} },
      { signal: AbortSignal.any([shutdownSignal, disconnect.signal]) },
    );
    if (!outcome.ok) {
      reply.code(httpStatusForErrorCode(outcome.error.code));
      return errorBody(outcome.error.code, outcome.error.message, {
        ...outcome.error.details,
        callId: outcome.callId,
        ...(outcome.logs === undefined ? {} : { logs: outcome.logs }),
      });
    }
    // SEC-1: executeTool has already redacted secret values from `result`, `output` and `logs`.
    return {
      callId: outcome.callId,
      toolName: outcome.toolName,
      result: outcome.result,
      output: outcome.output,
      truncated: outcome.truncated,
      durationMs: outcome.durationMs,
      ...(outcome.logs === undefined ? {} : { logs: outcome.logs }),
    };
  } finally {
    reply.raw.off('close', onClose);
  }
}
