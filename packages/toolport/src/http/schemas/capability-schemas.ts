import { Type } from 'typebox';
import { PROVIDER_NAMES } from '../../providers/provider-adapter.ts';
import { McpServerStatusSchema } from './mcp-server-schemas.ts';

export const CapabilitiesQuerySchema = Type.Object(
  {
    provider: Type.Optional(
      Type.Union(
        PROVIDER_NAMES.map((name) => Type.Literal(name)),
        { description: 'Wire format to project the tools to. Default: openai (the Responses API).' },
      ),
    ),
    model: Type.Optional(
      Type.String({ maxLength: 200, description: 'Echoed; the tool projection does not vary by model.' }),
    ),
    agent: Type.Optional(
      Type.String({ maxLength: 64, description: "Agent id. Default: the chat's agent, if any." }),
    ),
  },
  { additionalProperties: false },
);

export const CapabilityToolSchema = Type.Object({
  name: Type.String({ description: 'The wire name the model sees and calls' }),
  source: Type.String({ description: 'builtin, custom, mcp or workspace' }),
  origin: Type.String({
    description: 'Where the tool comes from, e.g. builtin, a file, or mcp:<server name>',
  }),
  mcpServer: Type.Optional(Type.String({ description: 'The MCP server name, for MCP tools' })),
  strict: Type.Boolean(),
  nonStrictReason: Type.Optional(Type.String()),
  sandboxed: Type.Optional(
    Type.Boolean({ description: 'Shell tools: whether calls run in the sandbox (docs/shell-sandbox.md)' }),
  ),
  sandboxReason: Type.Optional(Type.String({ description: 'Why a shell tool runs unsandboxed' })),
  wire: Type.Unknown({
    description: 'Exactly what the provider receives for this tool (name, description, schema)',
  }),
  permission: Type.Object(
    {
      user: Type.Unknown({ description: "The user's rule (tool settings), or null" }),
      agent: Type.Unknown({ description: "The agent's rule (agent tool row), or null" }),
      mayAsk: Type.Boolean({ description: 'Some calls of this tool would wait for approval' }),
      alwaysDenied: Type.Boolean({ description: 'Every call is refused by a rule' }),
    },
    {
      description:
        'Issue 16: the permission rules that apply to this tool (the stricter of user and agent wins).',
    },
  ),
});

export const CapabilitiesResponseSchema = Type.Object({
  chatId: Type.String(),
  provider: Type.String(),
  model: Type.Union([Type.String(), Type.Null()]),
  agentId: Type.Union([Type.String(), Type.Null()]),
  tools: Type.Array(CapabilityToolSchema),
  mcpServers: Type.Array(
    Type.Object({
      serverId: Type.String(),
      name: Type.String(),
      enabled: Type.Boolean(),
      status: McpServerStatusSchema,
    }),
  ),
});
