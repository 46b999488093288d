import { Type } from 'typebox';

/** The wire formats a stored provider configuration may name. */
export const PROVIDER_CONFIG_NAMES = ['openai', 'openai-chat', 'anthropic', 'gemini'] as const;

const ProviderNameSchema = Type.Union(
  PROVIDER_CONFIG_NAMES.map((name) => Type.Literal(name)),
  {
    description: '`openai` is the Responses API; `openai-chat` is Chat Completions (any compatible server).',
  },
);

export const ProviderConfigSchema = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'What a turn’s `provider` names; unique per user.' }),
  provider: Type.String(),
  baseUrl: Type.Union([Type.String(), Type.Null()]),
  defaultModel: Type.String(),
  apiKeySecret: Type.Union([Type.String(), Type.Null()], {
    description: 'The name of your secret holding the API key. The key itself is never returned.',
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const ProviderConfigListResponseSchema = Type.Object({ providers: Type.Array(ProviderConfigSchema) });

export const ProviderConfigIdParamsSchema = Type.Object({ providerId: Type.String({ maxLength: 64 }) });

const writableFields = {
  name: Type.String({ minLength: 1, maxLength: 64, description: 'Default: the provider name.' }),
  provider: ProviderNameSchema,
  baseUrl: Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()], {
    description: 'An OpenAI-compatible server (Ollama, vLLM, OpenRouter …) or a proxy; null for the default.',
  }),
  defaultModel: Type.String({ minLength: 1, maxLength: 200 }),
  apiKeySecret: Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], {
    description: 'Name of one of your secrets (PUT /api/secrets/:name) holding the API key.',
  }),
};

export const CreateProviderConfigBodySchema = Type.Object(
  {
    name: Type.Optional(writableFields.name),
    provider: writableFields.provider,
    baseUrl: Type.Optional(writableFields.baseUrl),
    defaultModel: writableFields.defaultModel,
    apiKeySecret: Type.Optional(writableFields.apiKeySecret),
  },
  { additionalProperties: false },
);

export const UpdateProviderConfigBodySchema = Type.Object(
  {
    name: Type.Optional(writableFields.name),
    provider: Type.Optional(writableFields.provider),
    baseUrl: Type.Optional(writableFields.baseUrl),
    defaultModel: Type.Optional(writableFields.defaultModel),
    apiKeySecret: Type.Optional(writableFields.apiKeySecret),
  },
  { additionalProperties: false },
);
