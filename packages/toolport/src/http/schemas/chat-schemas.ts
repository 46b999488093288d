import { Type } from 'typebox';

export const ChatSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  workingDirectory: Type.Union([Type.String(), Type.Null()]),
  mode: Type.Union([Type.Literal('chat'), Type.Literal('agent')]),
  agentId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const ChatListResponseSchema = Type.Object({ chats: Type.Array(ChatSchema) });

export const ChatIdParamsSchema = Type.Object({ chatId: Type.String({ maxLength: 64 }) });

export const CreateChatBodySchema = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 500 })),
    workingDirectory: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()], {
        description: 'Absolute path of an existing directory on the server.',
      }),
    ),
    mode: Type.Optional(Type.Union([Type.Literal('chat'), Type.Literal('agent')])),
    agentId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
        description: 'One of your agents: turns run with its prompt, model and tools.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `PATCH /api/chats/:chatId`: only the fields given change. */
export const UpdateChatBodySchema = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 500 })),
    workingDirectory: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()], {
        description: 'Absolute path of an existing directory on the server; null unbinds it.',
      }),
    ),
    mode: Type.Optional(Type.Union([Type.Literal('chat'), Type.Literal('agent')])),
    agentId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
        description: 'One of your agents; null unbinds it.',
      }),
    ),
  },
  { additionalProperties: false },
);
