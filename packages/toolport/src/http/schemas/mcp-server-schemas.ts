import { Type } from 'typebox';

/** From the process's MCP client pool (MCP-1); never connects by itself. */
export const McpServerStatusSchema = Type.Object({
  state: Type.String({
    description:
      'disabled, idle (not used yet), connecting, connected, failed, closed, or needs_authorization (a remote ' +
      'server that wants OAuth: POST /api/mcp-servers/:serverId/authorize)',
  }),
  connected: Type.Boolean(),
  transport: Type.Optional(Type.String({ description: 'stdio, streamable-http, or sse (legacy fallback)' })),
  lastError: Type.Optional(Type.Object({ message: Type.String(), at: Type.String() })),
  retryAt: Type.Optional(
    Type.String({ description: 'After a failure: no new connection attempt before this time (backoff)' }),
  ),
  consecutiveFailures: Type.Optional(Type.Integer({ description: 'Failed connects or listings in a row' })),
  toolCount: Type.Optional(Type.Integer()),
  lastListedAt: Type.Optional(Type.String()),
  connectedAt: Type.Optional(Type.String()),
  connectCount: Type.Integer({
    description: 'Connections (stdio: spawns) since this server process started',
  }),
  listCount: Type.Integer({ description: 'tools/list round trips since this server process started' }),
  pid: Type.Optional(Type.Integer({ description: "The stdio child's process id while connected" })),
});

export const McpServerSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  transport: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown()),
  enabled: Type.Boolean(),
  status: McpServerStatusSchema,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const McpServerStatusResponseSchema = Type.Object({
  serverId: Type.String(),
  name: Type.String(),
  enabled: Type.Boolean(),
  status: McpServerStatusSchema,
});

export const McpServerListResponseSchema = Type.Object({ servers: Type.Array(McpServerSchema) });

export const McpServerIdParamsSchema = Type.Object({ serverId: Type.String({ maxLength: 64 }) });

const Transport = Type.Union([Type.Literal('stdio'), Type.Literal('http')]);

export const CreateMcpServerBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    transport: Transport,
    config: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'stdio: {command, args?, env?, cwd?, callTimeoutSeconds?, connectTimeoutSeconds?}; http: {url, protocol? (auto|streamable-http|sse), ' +
        'headers?, callTimeoutSeconds?, connectTimeoutSeconds?}. Header and env values may hold {{SECRET}} references and are shown as "***".',
    }),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const PatchMcpServerBodySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    transport: Type.Optional(Transport),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Merged into the stored config; a header or env value of "***" keeps the stored value.',
      }),
    ),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** MCP-1 OAuth: where to send the user's browser. */
export const McpAuthorizeResponseSchema = Type.Object({
  authorizationUrl: Type.String({
    description:
      "The authorization server's URL (PKCE S256, resource indicator, state bound to the caller and this server, " +
      'usable once within 10 minutes); it returns the browser to GET /api/mcp-servers/oauth/callback.',
  }),
});

export const McpOAuthCallbackQuerySchema = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
  iss: Type.Optional(Type.String()),
});
