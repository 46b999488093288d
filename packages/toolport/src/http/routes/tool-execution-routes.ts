import { httpStatusForErrorCode } from '../../core/error-codes.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { errorBody } from '../plugins/error-handler.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses, ErrorResponseSchema } from '../schemas/error-schemas.ts';
import { ExecuteToolBodySchema, ExecuteToolResponseSchema } from '../schemas/tool-execution-schemas.ts';
import { ToolNameParamsSchema } from '../schemas/tool-settings-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

/**
 * `POST /api/tools/:toolName/execute` runs one call through getEnabledToolRuntime, exactly as a turn would. A tool
 * error answers with the status of its code (docs/errors.md) and the same `{error: {code, message}}` as the CLI.
 * `shutdownSignal` aborts running tools when the server stops; a client that disconnects aborts its own call.
 */
export function registerToolExecutionRoutes(
  app: ToolportApp,
  services: ToolportServices,
  shutdownSignal: AbortSignal,
): void {
  app.post(
    '/api/tools/:toolName/execute',
    {
      schema: {
        summary: 'Execute a tool with the caller’s settings',
        tags: ['tools'],
        params: ToolNameParamsSchema,
        body: ExecuteToolBodySchema,
        response: {
          200: ExecuteToolResponseSchema,
          ...errorResponses,
          403: ErrorResponseSchema,
          499: ErrorResponseSchema,
          500: ErrorResponseSchema,
          504: ErrorResponseSchema,
        },
      },
    },
    async (request, reply) => {
      const user = getAuthenticatedUser(request);
      const chat =
        request.body.chatId === undefined
          ? undefined
          : await services.chats.get(user.id, request.body.chatId);
      const agent =
        chat?.agentId === null || chat?.agentId === undefined
          ? undefined
          : await services.repositories.agents.get(user.id, chat.agentId);
      const runtime = await services.toolRuntime.getEnabledToolRuntime(user, chat, agent);

      const disconnect = new AbortController();
      const onClose = (): void => {
        if (!reply.raw.writableFinished) disconnect.abort(new Error('client disconnected'));
      };
      reply.raw.once('close', onClose);
      try {
        const outcome = await runtime.execute(
          { toolName: request.params.toolName, arguments: request.body.args ?? {} },
          { signal: AbortSignal.any([shutdownSignal, disconnect.signal]) },
        );
        if (outcome.ok) {
          // SEC-1: secrets are write-only through the API, so a result that echoes one comes back redacted too.
          const secretValues = await services.secrets.createReader(user.id).listSecretValues!();
          return {
            callId: outcome.callId,
            toolName: outcome.toolName,
            result: redactSecrets(outcome.result, secretValues),
            output: outcome.output,
            truncated: outcome.truncated,
            durationMs: outcome.durationMs,
          };
        }
        return reply.code(httpStatusForErrorCode(outcome.error.code)).send(
          errorBody(outcome.error.code, outcome.error.message, {
            ...outcome.error.details,
            callId: outcome.callId,
          }),
        );
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
}

function redactSecrets(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') {
    let redacted = value;
    for (const secret of secrets) if (secret.length >= 4) redacted = redacted.replaceAll(secret, '***');
    return redacted;
  }
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, secrets));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        key,
        redactSecrets(item, secrets),
      ]),
    );
  }
  return value;
}
