import { Type } from 'typebox';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { runToolCall } from '../run-tool-call.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import { ToolSettingsDescriptorSchema } from '../schemas/tool-settings-schemas.ts';
import type { ToolportApp } from '../server-types.ts';
import { toolCallResponses } from './tool-execution-routes.ts';

/** SPEC API-1's zappway routes for the built-in summary tools: GET describes the tool, POST runs it with the body. */
const SUMMARY_ROUTES = [
  { path: '/api/tools/web-page-summary', toolName: 'web_page_summary', what: 'a web page' },
  { path: '/api/tools/youtube-summary', toolName: 'youtube_summary', what: 'a YouTube video' },
] as const;

export function registerSummaryToolRoutes(
  app: ToolportApp,
  services: ToolportServices,
  shutdownSignal: AbortSignal,
): void {
  for (const route of SUMMARY_ROUTES) {
    app.get(
      route.path,
      {
        schema: {
          summary: `The ${route.toolName} tool and the caller's settings for it`,
          tags: ['tools'],
          response: { 200: ToolSettingsDescriptorSchema, ...errorResponses },
        },
      },
      async (request) => services.toolSettings.get(getAuthenticatedUser(request), route.toolName),
    );
    app.post(
      route.path,
      {
        schema: {
          summary: `Summarize ${route.what} (runs ${route.toolName}; the body is its arguments)`,
          tags: ['tools'],
          body: Type.Record(Type.String(), Type.Unknown()),
          response: toolCallResponses,
        },
      },
      async (request, reply) =>
        runToolCall(
          services,
          getAuthenticatedUser(request),
          { toolName: route.toolName, args: request.body },
          reply,
          shutdownSignal,
        ),
    );
  }
}
