import { Type } from 'typebox';

export const ChatTurnBodySchema = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    provider: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'A provider configuration name; default: your oldest.',
      }),
    ),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    maxIterations: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Model calls per turn (default 10).' }),
    ),
    agent: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "An agent id: this turn runs with that agent instead of the chat's.",
      }),
    ),
  },
  { additionalProperties: false },
);

const ToolCallSchema = Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() });

export const ChatMessageSchema = Type.Object({
  id: Type.String(),
  position: Type.Integer(),
  createdAt: Type.String(),
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool')]),
  content: Type.String({
    description: 'User or assistant text, or the tool result text the model received.',
  }),
  toolCalls: Type.Optional(Type.Array(ToolCallSchema)),
  toolCallId: Type.Optional(Type.String()),
  toolName: Type.Optional(Type.String()),
  isError: Type.Optional(Type.Boolean()),
});

export const ChatMessageListResponseSchema = Type.Object({ messages: Type.Array(ChatMessageSchema) });

export const ImageIdParamsSchema = Type.Object({ imageId: Type.String({ maxLength: 64 }) });
