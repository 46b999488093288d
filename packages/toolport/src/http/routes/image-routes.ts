import type { FastifyReply } from 'fastify';
import { ToolportError } from '../../core/errors.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { ImageIdParamsSchema } from '../schemas/chat-turn-schemas.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

/** IMG-1: images generate_image stored, served to their owner only (another user's id is 404). */
export function registerImageRoutes(app: ToolportApp, services: ToolportServices): void {
  app.get(
    '/api/images/:imageId',
    {
      schema: {
        summary: 'An image generate_image created (owner only)',
        tags: ['images'],
        params: ImageIdParamsSchema,
        description: 'The image bytes with their content type (image/png, image/jpeg, image/webp).',
        response: { 401: errorResponses[401], 404: errorResponses[404] },
      },
    },
    async (request, reply) => {
      const { imageId } = request.params;
      const image = await services.imageStore?.readImage(imageId, getAuthenticatedUser(request).id);
      if (image === undefined)
        throw new ToolportError('not_found', `No image ${JSON.stringify(imageId)}.`, {
          details: { imageId },
        });
      // Bytes, not a schema'd body: written to the raw reply type.
      return (reply as unknown as FastifyReply)
        .type(image.mimeType)
        .header('cache-control', 'private, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(Buffer.from(image.data));
    },
  );
}
