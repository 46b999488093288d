import type { paths } from '../.generated/api';

/** Response and body types straight from the generated OpenAPI types: no API shape is written by hand here. */
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Json<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

export type ApiResponse<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer Responses }
    ? 200 extends keyof Responses
      ? Json<Responses[200]>
      : 201 extends keyof Responses
        ? Json<Responses[201]>
        : never
    : never;

export type ApiBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: infer Body } ? Json<NonNullable<Body>> : never;

export type ToolDescriptor = ApiResponse<'/api/settings/tools', 'get'>['tools'][number];
export type ParameterDescriptor = ToolDescriptor['parameterDescriptors'][number];
export type Secret = ApiResponse<'/api/secrets', 'get'>['secrets'][number];
export type ProviderConfig = ApiResponse<'/api/providers', 'get'>['providers'][number];
export type ProviderConfigBody = ApiBody<'/api/providers', 'post'>;
export type McpServer = ApiResponse<'/api/mcp-servers', 'get'>['servers'][number];
export type McpServerBody = ApiBody<'/api/mcp-servers', 'post'>;
export type HttpTool = ApiResponse<'/api/tools/http-tool', 'get'>['tools'][number];
export type HttpToolBody = ApiBody<'/api/tools/http-tool', 'post'>;
export type Agent = ApiResponse<'/api/agents', 'get'>['agents'][number];
export type AgentTool = ApiResponse<'/api/agents/{agentId}/tools', 'get'>['tools'][number];
export type Chat = ApiResponse<'/api/chats', 'get'>['chats'][number];
export type ChatBody = ApiBody<'/api/chats', 'post'>;
export type ChatMessage = ApiResponse<'/api/chats/{chatId}/messages', 'get'>['messages'][number];
export type Execution = ApiResponse<'/api/executions', 'get'>['executions'][number];
export type ExecutionQuery = NonNullable<paths['/api/executions']['get']['parameters']['query']>;
export type Capabilities = ApiResponse<'/api/chats/{chatId}/capabilities', 'get'>;
export type CapabilityTool = Capabilities['tools'][number];
export type InspectorProvider = NonNullable<
  NonNullable<paths['/api/chats/{chatId}/capabilities']['get']['parameters']['query']>['provider']
>;
export type ToolRunResult = ApiResponse<'/api/tools/{toolName}/execute', 'post'>;
export type Me = ApiResponse<'/api/me', 'get'>;
export type ApiPath = keyof paths;
