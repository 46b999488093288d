import { Type } from 'typebox';

/** Seed 003 / SPEC HTTP-1: the stored shape of a declarative HTTP tool. */
export const HttpToolConfigSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4096 }),
    method: Type.Union([
      Type.Literal('GET'),
      Type.Literal('POST'),
      Type.Literal('PUT'),
      Type.Literal('PATCH'),
      Type.Literal('DELETE'),
    ]),
    description: Type.Optional(Type.String({ maxLength: 10_000, description: 'What the model reads.' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    body: Type.Optional(Type.String({ description: 'Template with {{variables}}.' })),
    auth: Type.Optional(
      Type.Object(
        {
          type: Type.Union([Type.Literal('bearer'), Type.Literal('basic'), Type.Literal('api-key')]),
          value: Type.String({ description: 'Write-only: responses show "***".' }),
          headerName: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    responseMapping: Type.Optional(
      Type.Object({ path: Type.String(), as: Type.String() }, { additionalProperties: false }),
    ),
    timeout: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 600_000, description: 'Milliseconds, default 30000.' }),
    ),
  },
  { additionalProperties: true },
);

export const CustomToolSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown()),
  enabled: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const CustomToolListResponseSchema = Type.Object({ tools: Type.Array(CustomToolSchema) });

export const CreateHttpToolBodySchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
    config: HttpToolConfigSchema,
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const CustomToolIdParamsSchema = Type.Object({ toolId: Type.String({ maxLength: 64 }) });

export const PatchCustomToolBodySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' })),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Merged into the stored config.' }),
    ),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
