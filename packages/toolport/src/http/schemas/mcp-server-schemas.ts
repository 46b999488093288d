import { Type } from 'typebox';

export const McpServerSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  transport: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown()),
  enabled: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
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
        'stdio: {command, args?, env?}; http: {url, headers?}. Header and env values are shown as "***".',
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
      Type.Record(Type.String(), Type.Unknown(), { description: 'Merged into the stored config.' }),
    ),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
