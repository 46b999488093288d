import { ToolportError } from '../../core/errors.ts';
import { MCP_OAUTH_CALLBACK_PATH, MCP_OAUTH_CLIENT_METADATA_PATH } from '../../services/mcp-oauth-service.ts';
import type { McpOAuthService } from '../../services/mcp-oauth-service.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import {
  McpAuthorizeResponseSchema,
  McpOAuthCallbackQuerySchema,
  McpServerIdParamsSchema,
} from '../schemas/mcp-server-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!,
  );
}

/** The page the browser lands on after the authorization server: it says what happened, nothing more. */
export function oauthResultPage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
</body></html>
`;
}

function oauthOf(services: ToolportServices): McpOAuthService {
  const oauth = services.mcp.oauth;
  if (oauth === undefined) throw new ToolportError('not_found', 'OAuth for MCP servers is not set up here.');
  return oauth;
}

/**
 * MCP-1 OAuth for the caller's remote MCP servers: start an authorization, the browser's return (public: the single-
 * use state says whose it is), forget it; plus toolport's client ID metadata document when it has a public https URL.
 * The operator policy (`mcp.remote`, `mcp.oauth`) is enforced by the service on start and on return.
 */
export function registerMcpOAuthRoutes(app: ToolportApp, services: ToolportServices): void {
  app.post(
    '/api/mcp-servers/:serverId/authorize',
    {
      schema: {
        summary: 'Start the OAuth authorization of a remote MCP server: returns the URL to open in a browser',
        tags: ['mcp'],
        params: McpServerIdParamsSchema,
        response: { 200: McpAuthorizeResponseSchema, 403: errorResponses[404], ...errorResponses },
      },
    },
    async (request) => {
      const user = getAuthenticatedUser(request);
      const oauth = oauthOf(services);
      const redirectUrl = oauth.callbackUrl(`${request.protocol}://${request.host}`);
      const { authorizationUrl } = await oauth.startAuthorization(user, request.params.serverId, redirectUrl);
      return { authorizationUrl };
    },
  );

  app.get(
    MCP_OAUTH_CALLBACK_PATH,
    {
      config: { public: true },
      schema: {
        summary: "The authorization server's redirect back: stores the tokens and shows a page that says so",
        tags: ['mcp'],
        security: [],
        querystring: McpOAuthCallbackQuerySchema,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const outcome = await oauthOf(services).completeAuthorization(request.query);
      reply.header('content-type', 'text/html; charset=utf-8');
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'no-referrer');
      if (!outcome.ok) {
        return reply.code(outcome.status).send(oauthResultPage('Authorization failed', outcome.message));
      }
      services.toolRuntime.invalidate(outcome.userId);
      return reply.send(
        oauthResultPage(
          'Authorized',
          `toolport is now authorized for the MCP server ${outcome.serverName}. You can close this window; its ` +
            'tools join your next turn.',
        ),
      );
    },
  );

  app.delete(
    '/api/mcp-servers/:serverId/authorization',
    {
      schema: {
        summary: "Forget the caller's OAuth tokens and registered client for a remote MCP server",
        tags: ['mcp'],
        params: McpServerIdParamsSchema,
        response: { 204: { type: 'null', description: 'Forgotten' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const user = getAuthenticatedUser(request);
      await oauthOf(services).forget(user, request.params.serverId);
      services.toolRuntime.invalidate(user.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    MCP_OAUTH_CLIENT_METADATA_PATH,
    { config: { public: true }, schema: { hide: true } },
    async (_request, reply) => {
      const oauth = oauthOf(services);
      const url = oauth.clientMetadataUrl;
      if (url === undefined)
        throw new ToolportError('not_found', 'No client metadata document is published here.');
      return reply.send({ ...oauth.clientMetadata(oauth.callbackUrl()), client_id: url });
    },
  );
}
