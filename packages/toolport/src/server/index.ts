/**
 * `toolport/server`: persistence, services and the HTTP API (SPEC §7). A separate entry so the root `toolport` entry
 * never loads Fastify, Kysely or the SQLite/PostgreSQL drivers. Named exports only.
 *
 * @example
 * ```ts
 * import { ToolRegistry, registerBuiltinTools } from 'toolport';
 * import { buildServer, createToolportServices, loadSecretKey, migrateDatabase, openDatabase } from 'toolport/server';
 *
 * const database = openDatabase('sqlite:./toolport.db'); // or 'postgres://user@host:5432/db'
 * await migrateDatabase(database);
 * const services = createToolportServices({
 *   database,
 *   registry: registerBuiltinTools(new ToolRegistry()),
 *   secretKey: loadSecretKey({ environmentValue: process.env.TOOLPORT_SECRET_KEY, dataDirectory: './data' }).key,
 * });
 * const { token } = await services.tokens.createUser('alice');
 * const runtime = await services.toolRuntime.getEnabledToolRuntime({ id: 'alice-id' }); // CORE-4
 * const app = await buildServer({ services, logger: true, plugins: [] });
 * await app.listen({ host: '127.0.0.1', port: 7420 });
 * ```
 */

// Persistence (DB-1)
export { migrateDatabase, openDatabase, wrapDialect } from '../persistence/database.ts';
export type {
  DatabaseEngine,
  DatabaseSchema,
  OpenDatabaseOptions,
  ToolportDatabase,
} from '../persistence/database.ts';
export { createRepositories } from '../persistence/repositories.ts';
export type { Repositories } from '../persistence/repositories.ts';
export type { AgentRecord, AgentToolRecord } from '../persistence/repositories/agent-repository.ts';
export type { ChatRecord } from '../persistence/repositories/chat-repository.ts';
export type { CustomToolRecord } from '../persistence/repositories/custom-tool-repository.ts';
export type { McpServerRecord } from '../persistence/repositories/mcp-server-repository.ts';
export type { UserRecord } from '../persistence/repositories/user-repository.ts';
export type { ProviderConfigRecord } from '../persistence/repositories/provider-config-repository.ts';
export type {
  StoredTranscriptMessage,
  TranscriptMessage,
  TranscriptToolCall,
} from '../persistence/repositories/chat-message-repository.ts';

// Services (CORE-4, SEC-1, AUTH-1)
export { createToolportServices } from '../services/toolport-services.ts';
export type { ToolportServices, ToolportServicesOptions } from '../services/toolport-services.ts';
export { ToolRuntimeService } from '../services/tool-runtime-service.ts';
export type { EnabledToolRuntimeOptions } from '../services/tool-runtime-service.ts';
export { ChatTurnService } from '../services/chat-turn-service.ts';
export { DatabaseImageStore } from '../services/database-image-store.ts';
export type { ServedImageStore } from '../services/database-image-store.ts';
export type { ChatTurnInput, PreparedChatTurn } from '../services/chat-turn-service.ts';
export { CONFIGURABLE_PROVIDERS, ProviderConfigService } from '../services/provider-config-service.ts';
export type { ConfigurableProvider, ProviderConfigInput } from '../services/provider-config-service.ts';
export { ToolSettingsService } from '../services/tool-settings-service.ts';
export type { ToolSettingsDescriptor, ToolSettingsUpdate } from '../services/tool-settings-service.ts';
export { createToolCatalog } from '../services/tool-catalog.ts';
export type { ToolCatalog, UserToolSource } from '../services/tool-catalog.ts';
export { generateApiToken, hashApiToken } from '../services/api-token-service.ts';
export { McpServerService, toMcpServerConfig } from '../services/mcp-server-service.ts';
export type { McpServiceOptions } from '../services/mcp-server-service.ts';
export { SecretCipher } from '../secrets/secret-cipher.ts';
export { loadSecretKey } from '../secrets/secret-key.ts';
export type { LoadedSecretKey, LoadSecretKeyOptions } from '../secrets/secret-key.ts';

// HTTP (API-1)
export { buildServer, TOOLPORT_VERSION } from '../http/build-server.ts';
export type {
  BuildServerOptions,
  ToolportApp,
  ToolportServerContext,
  ToolportServerPlugin,
} from '../http/build-server.ts';
export { getAuthenticatedUser } from '../http/plugins/auth.ts';
export type { ToolportRouteConfig } from '../http/plugins/auth.ts';
export { errorBody } from '../http/plugins/error-handler.ts';
export { createMcpEndpointPlugin, mcpAllowedHosts } from '../http/plugins/mcp-endpoint.ts';
export type { McpEndpointOptions } from '../http/plugins/mcp-endpoint.ts';
export { createWebUiPlugin, DEFAULT_WEB_UI_DIRECTORY, hasWebUiBuild } from '../http/plugins/web-ui.ts';
export type { WebUiOptions } from '../http/plugins/web-ui.ts';
export { DEFAULT_INSPECTOR_PROVIDER } from '../http/routes/capability-routes.ts';
export { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
