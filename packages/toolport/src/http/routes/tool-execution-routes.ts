import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { runToolCall } from '../run-tool-call.ts';
import { errorResponses, ErrorResponseSchema } from '../schemas/error-schemas.ts';
import { ExecuteToolBodySchema, ExecuteToolResponseSchema } from '../schemas/tool-execution-schemas.ts';
import { ToolNameParamsSchema } from '../schemas/tool-settings-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

export const toolCallResponses = {
  200: ExecuteToolResponseSchema,
  ...errorResponses,
  403: ErrorResponseSchema,
  499: ErrorResponseSchema,
  500: ErrorResponseSchema,
  502: ErrorResponseSchema,
  504: ErrorResponseSchema,
};

/**
 * `POST /api/tools/:toolName/execute`: a tool error answers with the status of its code (docs/errors.md) and the
 * same `{error: {code, message}}` as the CLI.
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
        response: toolCallResponses,
      },
    },
    async (request, reply) =>
      runToolCall(
        services,
        getAuthenticatedUser(request),
        { toolName: request.params.toolName, args: request.body.args, chatId: request.body.chatId },
        reply,
        shutdownSignal,
      ),
  );
}
