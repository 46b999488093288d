import { Type } from 'typebox';

export const ExecuteToolBodySchema = Type.Object(
  {
    args: Type.Optional(Type.Unknown({ description: 'The arguments object (or its JSON text).' })),
    chatId: Type.Optional(Type.String({ description: "Runs in this chat's working directory and mode." })),
  },
  { additionalProperties: false },
);

export const ExecuteToolResponseSchema = Type.Object({
  callId: Type.String(),
  toolName: Type.String(),
  result: Type.Unknown(),
  output: Type.String({ description: 'The serialized text a model would receive (CORE-7).' }),
  truncated: Type.Boolean(),
  durationMs: Type.Number(),
  logs: Type.Optional(
    Type.String({ description: 'What a workspace script wrote with console.* (64 KB cap).' }),
  ),
});
