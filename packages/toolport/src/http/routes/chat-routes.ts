import type { ChatRecord } from '../../persistence/repositories/chat-repository.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import {
  ChatIdParamsSchema,
  ChatListResponseSchema,
  ChatSchema,
  CreateChatBodySchema,
  UpdateChatBodySchema,
} from '../schemas/chat-schemas.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

function toChatResponse(chat: ChatRecord) {
  return {
    id: chat.id,
    title: chat.title,
    workingDirectory: chat.workingDirectory,
    mode: chat.mode,
    agentId: chat.agentId,
    createdAt: chat.createdAt,
    updatedAt: chat.updatedAt,
  };
}

/** Chats bind a working directory and a mode (PATH-1). Another user's chat answers 404, never 403 (AUTH-1). */
export function registerChatRoutes(app: ToolportApp, services: ToolportServices): void {
  app.post(
    '/api/chats',
    {
      schema: {
        summary: 'Create a chat',
        tags: ['chats'],
        body: CreateChatBodySchema,
        response: { 201: ChatSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const chat = await services.chats.create(getAuthenticatedUser(request), request.body);
      return reply.code(201).send(toChatResponse(chat));
    },
  );

  app.get(
    '/api/chats',
    {
      schema: {
        summary: "The caller's chats, newest first",
        tags: ['chats'],
        response: { 200: ChatListResponseSchema, 401: errorResponses[401] },
      },
    },
    async (request) => ({
      chats: (await services.chats.list(getAuthenticatedUser(request).id)).map(toChatResponse),
    }),
  );

  app.get(
    '/api/chats/:chatId',
    {
      schema: {
        summary: 'One chat',
        tags: ['chats'],
        params: ChatIdParamsSchema,
        response: { 200: ChatSchema, ...errorResponses },
      },
    },
    async (request) =>
      toChatResponse(await services.chats.get(getAuthenticatedUser(request).id, request.params.chatId)),
  );

  app.patch(
    '/api/chats/:chatId',
    {
      schema: {
        summary:
          'Change a chat: title, working directory or agent (null unbinds either) or mode (only the fields given)',
        tags: ['chats'],
        params: ChatIdParamsSchema,
        body: UpdateChatBodySchema,
        response: { 200: ChatSchema, ...errorResponses },
      },
    },
    async (request) =>
      toChatResponse(
        await services.chats.update(getAuthenticatedUser(request), request.params.chatId, request.body),
      ),
  );

  app.delete(
    '/api/chats/:chatId',
    {
      schema: {
        summary: 'Delete a chat',
        tags: ['chats'],
        params: ChatIdParamsSchema,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      await services.chats.delete(getAuthenticatedUser(request).id, request.params.chatId);
      return reply.code(204).send(null);
    },
  );
}
