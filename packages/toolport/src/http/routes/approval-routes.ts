import { Type } from 'typebox';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

const ApprovalParamsSchema = Type.Object({
  chatId: Type.String({ maxLength: 64 }),
  callId: Type.String({ minLength: 1, maxLength: 256 }),
});

const ApprovalBodySchema = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
    remember: Type.Optional(
      Type.Union([Type.Literal('call'), Type.Literal('session'), Type.Literal('always')], {
        description:
          '`call` (default): this call only; `session`: the same command/path/tool for the rest of this chat; ' +
          '`always`: an `allow` rule for exactly this call is added to your tool settings.',
      }),
    ),
    message: Type.Optional(
      Type.String({
        maxLength: 4000,
        description: 'Read by the model with a deny (why, what to do instead).',
      }),
    ),
  },
  { additionalProperties: false },
);

const ApprovalSchema = Type.Object({
  callId: Type.String(),
  toolName: Type.String(),
  status: Type.String({ description: 'approved or denied' }),
  remember: Type.Union([Type.String(), Type.Null()]),
  message: Type.Union([Type.String(), Type.Null()]),
  decidedBy: Type.Union([Type.String(), Type.Null()]),
  decidedAt: Type.Union([Type.String(), Type.Null()]),
});

/** Issue 16: the human's answer to a turn's `approval_requested` (any instance may receive it). */
export function registerApprovalRoutes(app: ToolportApp, services: ToolportServices): void {
  app.post(
    '/api/chats/:chatId/approvals/:callId',
    {
      schema: {
        summary: 'Approve or deny a tool call that waits for approval',
        description:
          "404 for an unknown call or another user's chat; 409 `conflict` once the call was decided or its " +
          "approval expired (the tool's `approvalTimeoutSeconds`, which denies it).",
        tags: ['chats'],
        params: ApprovalParamsSchema,
        body: ApprovalBodySchema,
        response: { 200: ApprovalSchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request) =>
      services.approvals.answer(
        getAuthenticatedUser(request),
        request.params.chatId,
        request.params.callId,
        request.body,
      ),
  );
}
