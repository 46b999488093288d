import type { FastifyRequest } from 'fastify';
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
import { ToolListingCache, type ToolListingKey } from '../tool-listing-cache.ts';

/** What Fastify's serializer sets for a JSON body; a cached listing is sent as bytes under the same type. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Seed "API De Tool Settings" / API-1. */
export function registerToolSettingsRoutes(app: ToolportApp, services: ToolportServices): void {
  // Issue 11: each user's serialized listing, sent again while it was built from the same inputs.
  const listings = new ToolListingCache();
  const listingKeys = new WeakMap<FastifyRequest, ToolListingKey>();
  app.get(
    '/api/settings/tools',
    {
      schema: {
        summary: "Every tool with the caller's effective settings",
        tags: ['settings'],
        response: { 200: ToolSettingsListResponseSchema, 401: errorResponses[401] },
      },
      // The body Fastify serialized for a listing built here is kept as sent (bytes, so the next send skips encoding).
      onSend: (request, reply, payload, done) => {
        const key = listingKeys.get(request);
        if (key === undefined || reply.statusCode !== 200 || typeof payload !== 'string') done(null, payload);
        else done(null, listings.store(key, payload));
      },
    },
    async (request, reply) => {
      const user = getAuthenticatedUser(request);
      const [inputs, loadErrors] = await Promise.all([
        services.toolSettings.listingInputs(user),
        services.codeTools.loadErrors(),
      ]);
      const key = { user, inputs, loadErrors };
      const body = listings.find(key);
      // Bytes skip the serializer (the schema types only the object form).
      if (body !== undefined) return reply.type(JSON_CONTENT_TYPE).send(body as never);
      const listing = {
        tools: services.toolSettings.describeListing(user, inputs),
        loadErrors: [...loadErrors],
      };
      listingKeys.set(request, key);
      return listing;
    },
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
