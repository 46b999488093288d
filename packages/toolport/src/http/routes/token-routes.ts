import { Type } from 'typebox';
import { ToolportError } from '../../core/errors.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

const TokenSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
});

const UserSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  isAdmin: Type.Boolean(),
  createdAt: Type.String(),
});

/**
 * AUTH-1 token and user management. A user lists, issues and revokes their own tokens (a new token is shown once);
 * an admin lists users and creates them (the API twin of `toolport user create`).
 */
export function registerTokenRoutes(app: ToolportApp, services: ToolportServices): void {
  const { apiTokens, users } = services.repositories;

  app.get(
    '/api/tokens',
    {
      schema: {
        summary: "The caller's API tokens (never the token values)",
        tags: ['account'],
        response: { 200: Type.Object({ tokens: Type.Array(TokenSchema) }), 401: errorResponses[401] },
      },
    },
    async (request) => ({ tokens: await apiTokens.listForUser(getAuthenticatedUser(request).id) }),
  );

  app.post(
    '/api/tokens',
    {
      schema: {
        summary: 'Issue a new token for the caller (the value is returned once)',
        tags: ['account'],
        body: Type.Object(
          { label: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ token: Type.String() }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const token = await services.tokens.issueToken(getAuthenticatedUser(request).id, request.body.label);
      return reply.code(201).send({ token });
    },
  );

  app.delete(
    '/api/tokens/:tokenId',
    {
      schema: {
        summary: 'Revoke one of the caller’s tokens (takes effect on every instance at once)',
        tags: ['account'],
        params: Type.Object({ tokenId: Type.String({ maxLength: 64 }) }),
        response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      if (!(await apiTokens.delete(getAuthenticatedUser(request).id, request.params.tokenId))) {
        throw new ToolportError('not_found', `No token ${JSON.stringify(request.params.tokenId)}.`);
      }
      return reply.code(204).send(null);
    },
  );

  const requireAdmin = (request: Parameters<typeof getAuthenticatedUser>[0]): void => {
    if (!getAuthenticatedUser(request).isAdmin) {
      throw new ToolportError('permission_denied', 'Only an admin can manage users.');
    }
  };

  app.get(
    '/api/users',
    {
      schema: {
        summary: 'Every user (admins only)',
        tags: ['account'],
        response: {
          200: Type.Object({ users: Type.Array(UserSchema) }),
          403: errorResponses[401],
          401: errorResponses[401],
        },
      },
    },
    async (request) => {
      requireAdmin(request);
      return { users: await users.list() };
    },
  );

  app.post(
    '/api/users',
    {
      schema: {
        summary: 'Create a user and their first token (admins only; the token is returned once)',
        tags: ['account'],
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200 }), isAdmin: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ user: UserSchema, token: Type.String() }),
          403: errorResponses[401],
          409: errorResponses[401],
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      const created = await services.tokens.createUser(request.body.name.trim(), {
        isAdmin: request.body.isAdmin ?? false,
        label: 'created by admin',
      });
      return reply.code(201).send(created);
    },
  );
}
