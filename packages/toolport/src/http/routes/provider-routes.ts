import type { ProviderConfigRecord } from '../../persistence/repositories/provider-config-repository.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import {
  CreateProviderConfigBodySchema,
  ProviderConfigIdParamsSchema,
  ProviderConfigListResponseSchema,
  ProviderConfigSchema,
  UpdateProviderConfigBodySchema,
} from '../schemas/provider-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

function toResponse(config: ProviderConfigRecord) {
  return {
    id: config.id,
    name: config.name,
    provider: config.provider,
    baseUrl: config.baseUrl,
    defaultModel: config.defaultModel,
    apiKeySecret: config.apiKeySecret,
    createdAt: config.createdAt,
    updatedAt: config.updatedAt,
  };
}

const conflictResponse = { 409: errorResponses[422] };

/** Per-user provider configurations. The API key is a secret reference (SEC-1); another user's config is 404. */
export function registerProviderRoutes(app: ToolportApp, services: ToolportServices): void {
  app.get(
    '/api/providers',
    {
      schema: {
        summary: "The caller's provider configurations, oldest (the default) first",
        tags: ['providers'],
        response: { 200: ProviderConfigListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({
      providers: (await services.providers.list(getAuthenticatedUser(request).id)).map(toResponse),
    }),
  );

  app.post(
    '/api/providers',
    {
      schema: {
        summary: 'Add a provider configuration',
        tags: ['providers'],
        body: CreateProviderConfigBodySchema,
        response: { 201: ProviderConfigSchema, ...errorResponses, ...conflictResponse },
      },
    },
    async (request, reply) => {
      const config = await services.providers.create(getAuthenticatedUser(request), request.body);
      return reply.code(201).send(toResponse(config));
    },
  );

  app.get(
    '/api/providers/:providerId',
    {
      schema: {
        summary: 'One provider configuration',
        tags: ['providers'],
        params: ProviderConfigIdParamsSchema,
        response: { 200: ProviderConfigSchema, ...errorResponses },
      },
    },
    async (request) =>
      toResponse(await services.providers.get(getAuthenticatedUser(request).id, request.params.providerId)),
  );

  app.patch(
    '/api/providers/:providerId',
    {
      schema: {
        summary: 'Change a provider configuration (only the fields given)',
        tags: ['providers'],
        params: ProviderConfigIdParamsSchema,
        body: UpdateProviderConfigBodySchema,
        response: { 200: ProviderConfigSchema, ...errorResponses, ...conflictResponse },
      },
    },
    async (request) =>
      toResponse(
        await services.providers.update(
          getAuthenticatedUser(request),
          request.params.providerId,
          request.body,
        ),
      ),
  );

  app.delete(
    '/api/providers/:providerId',
    {
      schema: {
        summary: 'Delete a provider configuration (its secret stays)',
        tags: ['providers'],
        params: ProviderConfigIdParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await services.providers.delete(getAuthenticatedUser(request).id, request.params.providerId);
      return reply.code(204).send(null);
    },
  );
}
