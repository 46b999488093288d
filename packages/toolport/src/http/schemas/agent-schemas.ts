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

export const PatchAgentBodySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Merged into the stored config (spread); null removes a key. Keys: systemPrompt, providerConfig, model, maxIterations.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AgentToolSchema = Type.Object({
  toolName: Type.String(),
  enabled: Type.Boolean({
    description: 'Whether the agent gets the tool (its selection: enabled rows allow, disabled rows deny).',
  }),
  config: Type.Record(Type.String(), Type.Unknown(), {
    description: "The agent's overlay: settings for built-ins, a config overlay for HTTP and agent tools.",
  }),
  type: Type.Optional(
    Type.String({
      description: 'Where the tool comes from: builtin, custom, mcp, http, agent (a specialist) …',
    }),
  ),
  selected: Type.Optional(Type.Boolean({ description: 'The agent has a row for this tool.' })),
  permission: Type.Optional(
    Type.Unknown({
      description:
        "Issue 16: the agent's permission rule (an action or pattern → action); the stricter of it and the user's wins.",
    }),
  ),
});

export const AgentToolListResponseSchema = Type.Object({ tools: Type.Array(AgentToolSchema) });

export const PatchAgentToolBodySchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Merged into the stored config (spread).' }),
    ),
    permission: Type.Optional(
      Type.Unknown({
        description: 'An action or an ordered pattern → action object; null forgets it. 422 if invalid.',
      }),
    ),
  },
  { additionalProperties: false },
);
