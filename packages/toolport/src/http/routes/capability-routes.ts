import { ToolportError } from '../../core/errors.ts';
import type { ToolSandboxState } from '../../core/tool-types.ts';
import { inspectProviderTools } from '../../providers/inspect-provider-tools.ts';
import type { ProviderName } from '../../providers/provider-adapter.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { permissionRulesByTool } from '../../services/agent-tool-selection.ts';
import { describePermission } from '../../permissions/describe-permission.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { CapabilitiesQuerySchema, CapabilitiesResponseSchema } from '../schemas/capability-schemas.ts';
import { ChatIdParamsSchema } from '../schemas/chat-schemas.ts';
import { errorResponses } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

/** The inspector projects to this wire format when the request names none: the one with strict mode (PROV-2). */
export const DEFAULT_INSPECTOR_PROVIDER: ProviderName = 'openai';

/**
 * SPEC MCP-3, the capability inspector: exactly what the provider would receive for this chat, model and agent,
 * computed by the same `getEnabledToolRuntime` call a turn makes. Side effect by design: an enabled MCP server whose
 * tools are not cached yet is connected (a stdio server is spawned) and listed, which warms the next turn. A user
 * prevents that by disabling the server.
 */
export function registerCapabilityRoutes(
  app: ToolportApp,
  services: ToolportServices,
  shutdownSignal: AbortSignal,
): void {
  app.get(
    '/api/chats/:chatId/capabilities',
    {
      schema: {
        summary:
          'Capability inspector: the tools a provider would receive for this chat (may start MCP servers)',
        tags: ['chats'],
        params: ChatIdParamsSchema,
        querystring: CapabilitiesQuerySchema,
        response: { 200: CapabilitiesResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const user = getAuthenticatedUser(request);
      const chat = await services.chats.get(user.id, request.params.chatId);
      const agentId = request.query.agent ?? chat.agentId ?? undefined;
      const agent = agentId === undefined ? null : await services.repositories.agents.get(user.id, agentId);
      if (agent === undefined) {
        throw new ToolportError('not_found', `No agent ${JSON.stringify(agentId)}.`, {
          details: { agentId },
        });
      }
      const provider = request.query.provider ?? DEFAULT_INSPECTOR_PROVIDER;
      const runtime = await services.toolRuntime.getEnabledToolRuntime(user, chat, agent, {
        signal: shutdownSignal,
      });
      const byName = new Map(runtime.tools.map((tool) => [tool.definition.name, tool]));
      const inspected = inspectProviderTools(
        provider,
        runtime.tools.map((tool) => tool.definition),
      );
      const servers = await services.repositories.mcpServers.list(user.id);
      // FS-6: shell tools say whether their calls run sandboxed here, and why not.
      const sandboxStates = new Map(
        await Promise.all(
          runtime.tools
            .filter((tool) => tool.tool.describeSandbox !== undefined)
            .map(
              async (tool) =>
                [tool.definition.name, await tool.tool.describeSandbox!(runtime.services)] as const,
            ),
        ),
      );
      const rules = permissionRulesByTool(
        await services.repositories.toolSettings.listForUser(user.id),
        agent === null ? [] : await services.repositories.agents.listTools(user.id, agent.id),
      );
      return {
        chatId: chat.id,
        provider,
        model: request.query.model ?? null,
        agentId: agent?.id ?? null,
        tools: inspected.map((item) => {
          const source = byName.get(item.name)?.source ?? { kind: 'builtin', origin: 'builtin' };
          return {
            name: item.name,
            source: source.kind,
            origin: source.origin,
            ...(source.kind === 'mcp' ? { mcpServer: source.origin.replace(/^mcp:/, '') } : {}),
            strict: item.strict,
            ...(item.nonStrictReason === undefined ? {} : { nonStrictReason: item.nonStrictReason }),
            ...sandboxFields(sandboxStates.get(item.name)),
            wire: item.wire,
            permission: describePermission(rules.get(item.name)),
          };
        }),
        mcpServers: servers.map((server) => {
          const { serverId, name, enabled, ...status } = services.mcp.statusOf(user, server);
          return { serverId, name, enabled, status };
        }),
      };
    },
  );
}

function sandboxFields(state: ToolSandboxState | undefined): { sandboxed?: boolean; sandboxReason?: string } {
  if (state === undefined) return {};
  return state.reason === undefined
    ? { sandboxed: state.sandboxed }
    : { sandboxed: state.sandboxed, sandboxReason: state.reason };
}
