import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import {
  ToolNameParamsSchema,
  ToolSettingsDescriptorSchema,
  ToolSettingsListResponseSchema,
  UpdateToolSettingsBodySchema,
} from '../schemas/tool-settings-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

/** Seed "API De Tool Settings" / API-1. */
export function registerToolSettingsRoutes(app: ToolportApp, services: ToolportServices): void {
  app.get(
    '/api/settings/tools',
    {
      schema: {
        summary: "Every tool with the caller's effective settings",
        tags: ['settings'],
        response: { 200: ToolSettingsListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({ tools: await services.toolSettings.list(getAuthenticatedUser(request)) }),
  );

  app.get(
    '/api/settings/tools/:toolName',
    {
      schema: {
        summary: "One tool's effective settings",
        tags: ['settings'],
        params: ToolNameParamsSchema,
        response: { 200: ToolSettingsDescriptorSchema, ...errorResponses },
      },
    },
    async (request) => services.toolSettings.get(getAuthenticatedUser(request), request.params.toolName),
  );

  app.put(
    '/api/settings/tools/:toolName',
    {
      schema: {
        summary: 'Enable/disable a tool and change its parameters',
        description:
          'Parameters are merged into the saved ones; `null` resets one to its default. 422 `invalid_settings` ' +
          '(a ToolSettingsError naming `parameter`) for an unknown name, a wrong type, a value out of bounds or not ' +
          'allowed, or disabling a tool that cannot be disabled.',
        tags: ['settings'],
        params: ToolNameParamsSchema,
        body: UpdateToolSettingsBodySchema,
        response: { 200: ToolSettingsDescriptorSchema, ...errorResponses },
      },
    },
    async (request) =>
      services.toolSettings.update(getAuthenticatedUser(request), request.params.toolName, request.body),
  );

  app.delete(
    '/api/settings/tools/:toolName',
    {
      schema: {
        summary: "Forget the caller's saved settings for a tool (back to defaults)",
        tags: ['settings'],
        params: ToolNameParamsSchema,
        response: { 200: ToolSettingsDescriptorSchema, ...errorResponses },
      },
    },
    async (request) => services.toolSettings.reset(getAuthenticatedUser(request), request.params.toolName),
  );
}
