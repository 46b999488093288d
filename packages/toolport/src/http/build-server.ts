import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import type { ToolportServices } from '../services/toolport-services.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerErrorHandler } from './plugins/error-handler.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { registerApprovalRoutes } from './routes/approval-routes.ts';
import { registerAgentRoutes } from './routes/agent-routes.ts';
import { registerAgentToolRoutes } from './routes/agent-tool-routes.ts';
import { registerCapabilityRoutes } from './routes/capability-routes.ts';
import { registerChatRoutes } from './routes/chat-routes.ts';
import { registerChatTurnRoutes } from './routes/chat-turn-routes.ts';
import { registerCustomToolRoutes } from './routes/custom-tool-routes.ts';
import { registerHealthRoutes } from './routes/health-routes.ts';
import { registerImageRoutes } from './routes/image-routes.ts';
import { registerMcpServerRoutes } from './routes/mcp-server-routes.ts';
import { registerPolicyRoutes } from './routes/policy-routes.ts';
import { registerProviderRoutes } from './routes/provider-routes.ts';
import { registerSecretRoutes } from './routes/secret-routes.ts';
import { registerSummaryToolRoutes } from './routes/summary-tool-routes.ts';
import { registerTokenRoutes } from './routes/token-routes.ts';
import { registerToolExecutionRoutes } from './routes/tool-execution-routes.ts';
import { registerToolSettingsRoutes } from './routes/tool-settings-routes.ts';
import { registerWorkspaceTrustRoutes } from './routes/workspace-trust-routes.ts';
import type { ToolportApp } from './server-types.ts';

export type { ToolportApp } from './server-types.ts';

/** What a server plugin (the web UI, `/mcp`, the chat-turn and inspector routes) receives. */
export interface ToolportServerContext {
  services: ToolportServices;
  /** Aborted when the server starts closing: long-running work (tools, streams, MCP sessions) should stop. */
  shutdownSignal: AbortSignal;
}

/**
 * A feature mounted on the server. Routes are authenticated unless they set `config: { public: true }`
 * (http/plugins/auth.ts); errors thrown as ToolportError get the common error body.
 */
export type ToolportServerPlugin = (app: ToolportApp, context: ToolportServerContext) => void | Promise<void>;

export interface BuildServerOptions {
  services: ToolportServices;
  /** Fastify's logger option: false (tests), true, or pino options. Authorization headers are always redacted. */
  logger?: FastifyServerOptions['logger'];
  /** Registered after the API routes, in order. */
  plugins?: readonly ToolportServerPlugin[];
  /** Largest accepted request body. */
  bodyLimitBytes?: number;
}

export const TOOLPORT_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const LANDING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolport</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>toolport ${TOOLPORT_VERSION}</h1>
<p>The API is running, but the web UI is not built here (<code>npm run build</code> in the repository builds
<code>packages/web</code>; <code>npm start</code> does it for you). Meanwhile, use the API with the token from the login
URL:</p>
<pre>curl -H 'Authorization: Bearer &lt;token&gt;' http://&lt;this host&gt;/api/settings/tools</pre>
<p>Routes and schemas: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
</body></html>
`;

/** Credentials that may travel in a query string; their values never reach the request log. */
const SECRET_QUERY_PARAMETERS = /([?&](?:token|access_token|api_key|apikey|key)=)[^&#]*/gi;

function serializeRequestForLog(request: {
  method: string;
  url: string;
  ip?: string;
  socket?: { remotePort?: number };
}): Record<string, unknown> {
  return {
    method: request.method,
    url: request.url.replace(SECRET_QUERY_PARAMETERS, '$1***'),
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The HTTP API (API-1) over one set of services. The caller listens and closes; closing does not close the DB. */
export async function buildServer(options: BuildServerOptions): Promise<ToolportApp> {
  const logger =
    options.logger === undefined || options.logger === false
      ? false
      : {
          ...(options.logger === true ? {} : options.logger),
          redact: ['req.headers.authorization', 'req.headers.cookie'],
          serializers: { req: serializeRequestForLog },
        };
  const app = Fastify({
    logger,
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
    // Keep-alive sockets must not hold a graceful shutdown open; in-flight requests still finish.
    forceCloseConnections: 'idle',
    // Never coerce: a wrong type is an error, not a guess (CORE-5 spirit applied to the API).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const shutdown = new AbortController();
  app.addHook('preClose', async () => {
    shutdown.abort(new Error('server shutting down'));
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'toolport',
        version: TOOLPORT_VERSION,
        description:
          'Tool settings, execution, secrets and chats. Errors: `{error: {code, message, ...details}}`.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
    },
  });

  registerErrorHandler(app);
  registerAuth(app, options.services.tokens);

  app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  registerHealthRoutes(app, TOOLPORT_VERSION);
  registerAccountRoutes(app, options.services);
  registerTokenRoutes(app, options.services);
  registerToolSettingsRoutes(app, options.services);
  registerToolExecutionRoutes(app, options.services, shutdown.signal);
  registerSecretRoutes(app, options.services);
  registerChatRoutes(app, options.services);
  registerApprovalRoutes(app, options.services);
  registerAgentRoutes(app, options.services);
  registerAgentToolRoutes(app, options.services);
  registerCustomToolRoutes(app, options.services);
  registerSummaryToolRoutes(app, options.services, shutdown.signal);
  registerMcpServerRoutes(app, options.services);
  registerCapabilityRoutes(app, options.services, shutdown.signal);
  registerProviderRoutes(app, options.services);
  registerChatTurnRoutes(app, options.services, shutdown.signal);
  registerImageRoutes(app, options.services);
  registerPolicyRoutes(app, options.services);
  registerWorkspaceTrustRoutes(app, options.services);

  const context: ToolportServerContext = { services: options.services, shutdownSignal: shutdown.signal };
  for (const plugin of options.plugins ?? []) await plugin(app, context);
  // Without the web UI plugin (tests) or its build, the login URL lands on a short public page instead of a bare 401.
  if (!app.hasRoute({ method: 'GET', url: '/' })) {
    app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(LANDING_PAGE),
    );
  }

  await app.ready();
  return app;
}
