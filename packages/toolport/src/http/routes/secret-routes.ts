import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import {
  PutSecretBodySchema,
  SecretListResponseSchema,
  SecretMetadataSchema,
  SecretNameParamsSchema,
} from '../schemas/secret-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

/** SEC-1: write-only. No route returns a value; responses carry names and timestamps. */
export function registerSecretRoutes(app: ToolportApp, services: ToolportServices): void {
  app.get(
    '/api/secrets',
    {
      schema: {
        summary: "The caller's secrets: names and timestamps only",
        tags: ['secrets'],
        response: { 200: SecretListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({ secrets: await services.secrets.list(getAuthenticatedUser(request).id) }),
  );

  app.put(
    '/api/secrets/:name',
    {
      schema: {
        summary: 'Create or replace a secret',
        tags: ['secrets'],
        params: SecretNameParamsSchema,
        body: PutSecretBodySchema,
        response: { 200: SecretMetadataSchema, ...errorResponses },
      },
    },
    async (request) =>
      services.secrets.set(getAuthenticatedUser(request).id, request.params.name, request.body.value),
  );

  app.delete(
    '/api/secrets/:name',
    {
      schema: {
        summary: 'Delete a secret',
        tags: ['secrets'],
        params: SecretNameParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await services.secrets.delete(getAuthenticatedUser(request).id, request.params.name);
      return reply.code(204).send(null);
    },
  );
}
