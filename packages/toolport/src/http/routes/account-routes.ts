import { Type } from 'typebox';
import { ToolportError } from '../../core/errors.ts';
import { isErrorCode } from '../../core/error-codes.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

const ExecutionSchema = Type.Object({
  callId: Type.String(),
  toolName: Type.String(),
  userId: Type.String(),
  chatId: Type.Union([Type.String(), Type.Null()]),
  agentId: Type.Union([Type.String(), Type.Null()]),
  startedAt: Type.String(),
  durationMs: Type.Number(),
  outcome: Type.String({ description: '`ok` or an error code' }),
  resultSize: Type.Integer(),
  parentCallId: Type.Union([Type.String(), Type.Null()], {
    description: 'AGENT-1: the delegating call, for calls a sub-agent made.',
  }),
  approval: Type.Union(
    [
      Type.Object({
        decision: Type.String({ description: 'approve or deny' }),
        decidedBy: Type.String({
          description: 'rule, session, timeout, user:<id>, cli, cli --yes, mcp-client …',
        }),
        rule: Type.Union([Type.String(), Type.Null()]),
        remember: Type.Union([Type.String(), Type.Null()]),
        decidedAt: Type.String(),
      }),
      Type.Null(),
    ],
    { description: 'Issue 16: how a permission rule (or a human) decided; null when no rule applied.' },
  ),
});

const ExecutionQuerySchema = Type.Object(
  {
    toolName: Type.Optional(Type.String()),
    chatId: Type.Optional(Type.String()),
    parentCallId: Type.Optional(Type.String({ description: 'The calls a sub-agent made for this call.' })),
    outcome: Type.Optional(Type.String()),
    userId: Type.Optional(Type.String({ description: 'Admins only: another user, or `*` for everyone.' })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: '1-1000, default 100' })),
  },
  { additionalProperties: false },
);

/** Who am I, and the CORE-6 audit trail: a user queries their own executions; an admin anyone's. */
export function registerAccountRoutes(app: ToolportApp, services: ToolportServices): void {
  app.get(
    '/api/me',
    {
      schema: {
        summary: 'The authenticated user',
        tags: ['account'],
        response: {
          200: Type.Object({
            id: Type.String(),
            name: Type.String(),
            isAdmin: Type.Boolean(),
            createdAt: Type.String(),
          }),
          401: errorResponses[401],
        },
      },
    },
    async (request) => getAuthenticatedUser(request),
  );

  app.get(
    '/api/executions',
    {
      schema: {
        summary: 'Tool executions (audit trail), newest first',
        tags: ['account'],
        querystring: ExecutionQuerySchema,
        response: { 200: Type.Object({ executions: Type.Array(ExecutionSchema) }), ...errorResponses },
      },
    },
    async (request) => {
      const user = getAuthenticatedUser(request);
      const { toolName, chatId, parentCallId, outcome, userId, limit } = request.query;
      if (userId !== undefined && userId !== user.id && !user.isAdmin) {
        throw new ToolportError('permission_denied', "Only an admin can read other users' executions.");
      }
      if (outcome !== undefined && outcome !== 'ok' && !isErrorCode(outcome)) {
        throw new ToolportError(
          'bad_request',
          `Unknown outcome ${JSON.stringify(outcome)}: use ok or an error code.`,
        );
      }
      const count = limit === undefined ? 100 : Math.min(Math.max(Number(limit), 1), 1000);
      const records = await services.repositories.toolExecutions.query({
        ...(userId === '*' ? {} : { userId: userId ?? user.id }),
        ...(toolName === undefined ? {} : { toolName }),
        ...(chatId === undefined ? {} : { chatId }),
        ...(parentCallId === undefined ? {} : { parentCallId }),
        ...(outcome === undefined ? {} : { outcome: outcome as 'ok' }),
        limit: count,
      });
      return {
        executions: records.map((record) => ({
          ...record,
          chatId: record.chatId ?? null,
          agentId: record.agentId ?? null,
          parentCallId: record.parentCallId ?? null,
          approval: record.approval ?? null,
          startedAt: record.startedAt.toISOString(),
        })),
      };
    },
  );
}
