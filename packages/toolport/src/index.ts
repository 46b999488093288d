/**
 * toolport's public library surface. Named exports only (no `export *`): what is here is the contract.
 *
 * @example
 * ```ts
 * import { ToolRegistry, defineTool, executeTool } from 'toolport';
 *
 * const registry = new ToolRegistry();
 * registry.register(defineTool<{ text: string }>({
 *   definition: {
 *     name: 'shout',
 *     description: 'Upper-cases text.',
 *     parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
 *   },
 *   settings: { title: 'Shout', description: 'Upper-cases text', category: 'interaction', enabledByDefault: true,
 *     canDisable: true, defaultParameters: {}, parameterDescriptors: [] },
 *   execute: async ({ text }) => ({ text: text.toUpperCase() }),
 * }), { kind: 'custom', origin: 'example' });
 *
 * const outcome = await executeTool({ toolName: 'shout', arguments: { text: 'hi' }, userId: 'me' }, { registry });
 * // outcome.ok === true, outcome.result → { text: 'HI' }, outcome.output → '{"text":"HI"}'
 * ```
 */

// Types (CORE-1)
export type {
  EffectiveToolSettings,
  FreshnessLedger,
  JsonSchema,
  OutboundHttpClient,
  OutboundHttpRequest,
  OutboundHttpResponse,
  RegisteredTool,
  SecretReader,
  SettingValue,
  ToolAnnotations,
  ToolArguments,
  ToolCategory,
  ToolContext,
  ToolDefinition,
  ToolMode,
  ToolParameterDescriptor,
  ToolParameterFormat,
  ToolParameterType,
  ToolParameterValidator,
  ToolParameters,
  ToolProgress,
  ToolServices,
  ShellSandboxOptions,
  ToolSandboxState,
  ToolSettingsInput,
  ToolSettingsMetadata,
  ToolportLogger,
  GeneratedImage,
  ImageGenerationRequest,
  ImageGenerationService,
  ImageStore,
  StoredImage,
} from './core/tool-types.ts';
export { defineTool } from './core/tool-types.ts';

// Registry (CORE-2)
export {
  TOOL_NAME_PATTERN,
  ToolRegistry,
  assertValidToolName,
  defaultToolRegistry,
  getRegisteredTool,
  registerTool,
} from './core/tool-registry.ts';
export type { RegistryEntry, ToolLookup, ToolSource, ToolSourceKind } from './core/tool-registry.ts';

// Runtime (CORE-4 without the database)
export { createToolRuntime } from './core/tool-runtime.ts';
export type {
  CreateToolRuntimeOptions,
  RuntimeTool,
  ToolCallOptions,
  ToolCallRequest,
  ToolRuntime,
} from './core/tool-runtime.ts';

// Settings policy (CORE-3)
export {
  TIMEOUT_SECONDS_DESCRIPTOR,
  checkToolParameterMeaning,
  clampIntegerSetting,
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  getStringSetting,
  getToolDefinitionsForTools,
  getToolTimeoutMs,
  mergeToolSettings,
  normalizeToolParameters,
} from './core/settings-policy.ts';

// Arguments (CORE-5)
export { parseToolArgumentsJson, validateToolArguments } from './core/tool-arguments.ts';

// Execution (CORE-6, CORE-7)
export { ToolCancelledReason, ToolTimeoutReason, executeTool, toolFailure } from './core/execute-tool.ts';
export type {
  AgentToolPermissions,
  ExecuteToolEnvironment,
  ExecuteToolRequest,
  ToolErrorPayload,
  ToolExecutionFailure,
  ToolExecutionOutcome,
  ToolExecutionSuccess,
} from './core/execute-tool.ts';
export { InMemoryExecutionRecorder } from './core/execution-recorder.ts';
export type {
  ToolExecutionQuery,
  ToolExecutionRecord,
  ToolExecutionRecorder,
} from './core/execution-recorder.ts';
export {
  DEFAULT_MAX_RESULT_CHARACTERS,
  serializeToolResult,
  stringifyToolResult,
} from './core/serialize-result.ts';
export type { SerializedToolResult } from './core/serialize-result.ts';
export { silentLogger } from './core/logger.ts';

// Errors
export { ERROR_CODES, httpStatusForErrorCode, isErrorCode } from './core/error-codes.ts';
export type { ErrorCode } from './core/error-codes.ts';
export {
  GrepPatternError,
  ToolArgumentError,
  ToolParameterError,
  ToolSettingsError,
  ToolportError,
  isToolportError,
} from './core/errors.ts';

// Outbound HTTP policy (NET-1)
export {
  createSafeFetch,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_OUTBOUND_TIMEOUT_MS,
} from './net/safe-fetch.ts';
export type { SafeFetch, SafeFetchOptions } from './net/safe-fetch.ts';
export { checkOutboundAddress, compileAllowlist } from './net/ip-address-policy.ts';
export type { AddressVerdict, OutboundAllowlist } from './net/ip-address-policy.ts';

// Built-ins
export { listBuiltinTools, registerBuiltinTools } from './tools/index.ts';

// Shell tools (FS-6)
export { buildShellTool, describeShellTool } from './tools/shell/build-shell-tool.ts';
export type { ShellToolSpec } from './tools/shell/build-shell-tool.ts';
export { runShellCommand } from './tools/shell/run-shell-command.ts';
export type {
  RunShellCommandOptions,
  ShellCommandResult,
  ShellTermination,
} from './tools/shell/run-shell-command.ts';
export {
  describeShellSandboxStatus,
  detectShellSandbox,
  planShellSandbox,
} from './tools/shell/shell-sandbox.ts';
export type { ShellSandboxPlan, ShellSandboxStatus } from './tools/shell/shell-sandbox.ts';
export { recoverShellCalls } from './tools/shell/shell-call-records.ts';
// Providers and the agent loop (PROV-1 … PROV-5)
export {
  deriveStrictParameters,
  explainStrictIncompatibility,
  isStrictCompatible,
  toStrictSchema,
} from './providers/strict-schema.ts';
export type { StrictDerivation } from './providers/strict-schema.ts';
export { toolDefsToResponsesAPI } from './providers/openai-responses/openai-responses-tool-mapper.ts';
export { toolDefsToChatCompletions } from './providers/openai-chat/openai-chat-tool-mapper.ts';
export type { ChatCompletionsMapperOptions } from './providers/openai-chat/openai-chat-tool-mapper.ts';
export { toolDefsToAnthropic } from './providers/anthropic/anthropic-tool-mapper.ts';
export {
  toolDefsToGeminiFunctionDeclarations,
  toolDefsToGeminiInteractions,
} from './providers/gemini/gemini-tool-mapper.ts';
export type { GeminiInteractionsFunctionTool } from './providers/gemini/gemini-tool-mapper.ts';
export { toGeminiSchema } from './providers/gemini/to-gemini-schema.ts';
export type { ToolMapperOptions } from './providers/tool-mapper-options.ts';
// The SDK-backed adapters and image generation live in `toolport/providers`, so this entry loads no provider SDK.
export { PROVIDER_NAMES, ProviderStreamError } from './providers/provider-adapter.ts';
export { API_KEY_ENVIRONMENT_VARIABLES } from './providers/api-key-variables.ts';
export type {
  ProviderErrorType,
  CompletedToolCall,
  ProviderAdapter,
  ProviderAdapterOptions,
  ProviderName,
  ProviderSession,
  SessionOptions,
  StepOutcome,
  ToolResultForModel,
} from './providers/provider-adapter.ts';
export { DEFAULT_MAX_ITERATIONS, runAgentTurn, startConversation } from './providers/agent-loop.ts';
export type { AgentTurnOptions, AgentTurnSummary, StartConversationOptions } from './providers/agent-loop.ts';
export { buildSystemPrompt } from './providers/system-prompt.ts';
export type {
  ErrorEvent,
  StepEvent,
  StopReason,
  StreamEvent,
  TextDeltaEvent,
  TokenUsage,
  ToolCallArgumentsDeltaEvent,
  ToolCallCompletedEvent,
  ToolCallStartedEvent,
  ToolResultEvent,
  TurnCompletedEvent,
} from './providers/stream-events.ts';
export { inspectProviderTools } from './providers/inspect-provider-tools.ts';
export type { InspectedProviderTool } from './providers/inspect-provider-tools.ts';
export { classifyProviderError } from './providers/provider-errors.ts';
export type { ProviderErrorContext, ProviderFailure } from './providers/provider-errors.ts';
export type {
  ImageGenerationServiceOptions,
  ImageProviderConfig,
} from './providers/images/image-generation-service.ts';
export { FileImageStore } from './providers/images/file-image-store.ts';
export { createGenerateImageToolPlan } from './tools/generate-image.ts';
export type { GenerateImagePlan, GenerateImageResult } from './tools/generate-image.ts';
export { formatStreamEventAsSse } from './providers/stream-events-sse.ts';
// Filesystem tools' helpers (PATH-1/PATH-2, FS-1/FS-2). `closeScanWorkers` ends grep/glob's warm workers on shutdown.
export { createPathPolicy, isPathInside, resolveAndValidatePath } from './fs/resolve-and-validate-path.ts';
export type { PathPolicy, PathPolicyOptions, ResolvedPath } from './fs/resolve-and-validate-path.ts';
export { InMemoryFreshnessLedger } from './fs/freshness-ledger.ts';
export { FileFreshnessLedger } from './fs/file-freshness-ledger.ts';
export { closeScanWorkers } from './fs/scan-pool.ts';

// Issue 16: permission rules and approval.
export {
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  MAX_APPROVAL_TIMEOUT_SECONDS,
  MIN_APPROVAL_TIMEOUT_SECONDS,
} from './core/tool-approval.ts';
export type {
  ApprovalAudit,
  ApprovalDecision,
  ApprovalRemember,
  ApprovalRequest,
  ApproveCallback,
  PermissionAction,
  PermissionCall,
  PermissionCheck,
  PermissionVerdict,
} from './core/tool-approval.ts';
export { createPermissionCheck } from './permissions/permission-check.ts';
export type { PermissionCheckOptions, ToolPermissionRules } from './permissions/permission-check.ts';
export { evaluateRule, permissionKindFor } from './permissions/evaluate-rule.ts';
export { parsePermissionRule, type PermissionRule } from './permissions/permission-rule.ts';
export type { ApprovalRequestedEvent } from './providers/stream-events.ts';
