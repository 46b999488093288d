import { Type } from 'typebox';

export const AgentSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const AgentListResponseSchema = Type.Object({ agents: Type.Array(AgentSchema) });

export const AgentIdParamsSchema = Type.Object({ agentId: Type.String({ maxLength: 64 }) });

export const AgentToolParamsSchema = Type.Object({
  agentId: Type.String({ maxLength: 64 }),
  toolId: Type.String({ maxLength: 64, description: 'The tool name.' }),
});

export const CreateAgentBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const AgentToolSchema = Type.Object({
  toolName: Type.String(),
  enabled: Type.Boolean({ description: 'true: in the allowlist; false: denied' }),
  config: Type.Record(Type.String(), Type.Unknown()),
});

export const AgentToolListResponseSchema = Type.Object({ tools: Type.Array(AgentToolSchema) });

export const PatchAgentToolBodySchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Merged into the stored config (spread).' }),
    ),
  },
  { additionalProperties: false },
);
