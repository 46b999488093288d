import { Type } from 'typebox';

/**
 * Seed 003 / SPEC HTTP-1: the shape of a declarative HTTP tool, for the OpenAPI document and as a first check. The
 * service (`custom-tools/http-tool-config.ts`) has the full rules; a shape error here is reported the same way, as a
 * 422 naming the field.
 */
export const HttpToolConfigSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'Absolute http(s) URL; {{argument}} placeholders in the path and query only.',
    }),
    method: Type.Union([
      Type.Literal('GET'),
      Type.Literal('POST'),
      Type.Literal('PUT'),
      Type.Literal('PATCH'),
      Type.Literal('DELETE'),
    ]),
    description: Type.Optional(Type.String({ maxLength: 10_000, description: 'What the model reads.' })),
    parameters: Type.Record(Type.String(), Type.Unknown(), {
      description: 'JSON Schema (type object) of the arguments; its properties name the {{placeholders}}.',
    }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'Literal values are write-only ("***" in responses); {{SECRET}} references are shown as written.',
      }),
    ),
    body: Type.Optional(
      Type.Unknown({
        description: 'Template: a JSON value or JSON text for JSON bodies, else form/text/XML text.',
      }),
    ),
    auth: Type.Optional(
      Type.Object(
        {
          type: Type.Union([Type.Literal('bearer'), Type.Literal('basic'), Type.Literal('api-key')]),
          value: Type.String({ description: 'Write-only when literal: responses show "***".' }),
          headerName: Type.Optional(Type.String({ description: 'api-key only; default X-API-Key.' })),
        },
        { additionalProperties: false },
      ),
    ),
    responseMapping: Type.Optional(
      Type.Object(
        { path: Type.String({ description: 'JSONPath, evaluated without eval.' }), as: Type.String() },
        { additionalProperties: false },
      ),
    ),
    timeout: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 600_000, description: 'Milliseconds, default 30000.' }),
    ),
  },
  { additionalProperties: false },
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
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Merged into the stored config by spread, then validated like a create; "***" keeps a stored credential.',
      }),
    ),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const TestHttpToolBodySchema = Type.Object(
  {
    args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    send: Type.Optional(Type.Boolean({ description: 'Also send it and return what the tool would return.' })),
  },
  { additionalProperties: false },
);

export const TestHttpToolResponseSchema = Type.Object({
  request: Type.Object({
    method: Type.String(),
    url: Type.String(),
    headers: Type.Record(Type.String(), Type.String(), { description: 'Credentials masked as ***.' }),
    body: Type.Union([Type.String(), Type.Null()]),
  }),
  response: Type.Optional(
    Type.Object({
      ok: Type.Boolean(),
      result: Type.Optional(Type.Unknown()),
      error: Type.Optional(Type.Unknown()),
    }),
  ),
});

export const ImportHttpToolsBodySchema = Type.Object(
  {
    document: Type.Optional(
      Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())], {
        description: 'An OpenAPI 3 (or Swagger 2) document: an object, or JSON/YAML text.',
      }),
    ),
    url: Type.Optional(Type.String({ description: 'Where to fetch the document (through NET-1).' })),
    dryRun: Type.Optional(Type.Boolean({ description: 'Plan the tools without creating them.' })),
    enabled: Type.Optional(
      Type.Boolean({ description: 'Whether created tools start enabled (default true).' }),
    ),
  },
  { additionalProperties: false },
);

export const ImportHttpToolsResponseSchema = Type.Object({
  tools: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  skipped: Type.Array(Type.Object({ operation: Type.String(), reason: Type.String() })),
});
