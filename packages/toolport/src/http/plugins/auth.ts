import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ToolportError } from '../../core/errors.ts';
import type { UserRecord } from '../../persistence/repositories/user-repository.ts';
import type { ApiTokenService } from '../../services/api-token-service.ts';
import { errorBody } from './error-handler.ts';

/** Routes opt out of authentication with `config: { public: true }` (health, the OpenAPI document, UI assets). */
export interface ToolportRouteConfig {
  public?: boolean;
}

const authenticatedUsers = new WeakMap<FastifyRequest, UserRecord>();

/** The caller, set by the auth hook. Throws `unauthorized` on a public route, where there is none. */
export function getAuthenticatedUser(request: FastifyRequest): UserRecord {
  const user = authenticatedUsers.get(request);
  if (user === undefined) throw new ToolportError('unauthorized', 'This route needs a bearer token.');
  return user;
}

function readBearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** AUTH-1: every route but the public ones needs `Authorization: Bearer <token>`. */
export function registerAuth(app: FastifyInstance, tokens: ApiTokenService): void {
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config as ToolportRouteConfig | undefined;
    if (config?.public === true) return;
    const token = readBearerToken(request);
    const user = token === undefined ? undefined : await tokens.authenticate(token);
    if (user === undefined) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="toolport"')
        .send(
          errorBody(
            'unauthorized',
            token === undefined
              ? 'Missing bearer token: send Authorization: Bearer <token> (toolport user create <name> prints one).'
              : 'Invalid or revoked token.',
          ),
        );
    }
    authenticatedUsers.set(request, user);
    return undefined;
  });
}
