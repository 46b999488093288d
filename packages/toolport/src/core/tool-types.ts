/**
 * The core types of SPEC CORE-1. `core/` imports nothing else of ours: every service a tool may use (freshness
 * ledger, secrets, outbound HTTP) is an interface here, implemented by later layers.
 */

import type { ApproveCallback } from './tool-approval.ts';

/** A JSON Schema document. Kept structural: toolport reads and transforms schemas, it does not own their type. */
export type JsonSchema = { [keyword: string]: unknown };

export interface ToolDefinition {
  /** Must match `^[a-zA-Z0-9_-]{1,64}$`, the strictest provider rule. */
  name: string;
  /** The text the model reads. */
  description: string;
  /** Plain JSON Schema of the arguments (type object). Provider dialects are derived at the boundary. */
  parameters: JsonSchema;
}

export type ToolCategory = 'system' | 'image' | 'interaction' | 'web' | 'custom' | 'mcp';

export type ToolParameterType = 'integer' | 'number' | 'boolean' | 'string' | 'string[]' | 'path[]' | 'enum';

/** Enough for a form: the web UI renders settings from these without tool-specific code. */
export interface ToolParameterDescriptor {
  name: string;
  title: string;
  type: ToolParameterType;
  description: string;
  default: SettingValue;
  /** Inclusive bounds for integer and number settings. */
  minimum?: number;
  maximum?: number;
  /** Allowed values for `enum` settings. */
  allowedValues?: readonly string[];
  /** Shown next to the field, e.g. "seconds", "bytes". */
  unit?: string;
  /**
   * What a string setting means, for forms and clients (`time-zone`: an IANA name, `locale`: a BCP 47 tag). The check
   * itself is code: `ToolSettingsMetadata.parameterValidators`.
   */
  format?: ToolParameterFormat;
}

export type ToolParameterFormat = 'time-zone' | 'locale';

/**
 * A check of a setting's meaning beyond its type (a real time zone, an existing model name): returns what is wrong in
 * a sentence, or `undefined` when the value is fine. Run on every update and override, never on stored values (a
 * stored value that no longer passes must not break execution, CORE-3).
 */
export type ToolParameterValidator = (value: SettingValue) => string | undefined;

export type SettingValue = string | number | boolean | readonly string[];
export type ToolParameters = Record<string, SettingValue>;

export interface ToolSettingsMetadata {
  title: string;
  description: string;
  category: ToolCategory;
  enabledByDefault: boolean;
  canDisable: boolean;
  defaultParameters: ToolParameters;
  parameterDescriptors: readonly ToolParameterDescriptor[];
  /** Per setting name: a check of its meaning (code, so not part of the JSON descriptors the UI renders). */
  parameterValidators?: Readonly<Record<string, ToolParameterValidator>>;
}

/** Saved or overriding settings: every field optional, values unchecked until the policy normalizes them. */
export interface ToolSettingsInput {
  enabled?: unknown;
  parameters?: Record<string, unknown>;
}

/** The merged, validated settings a tool runs with. */
export interface EffectiveToolSettings {
  enabled: boolean;
  parameters: ToolParameters;
}

export type ToolMode = 'chat' | 'agent';

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** SPEC PATH-1/FS-1: per chat (or session), real path → sha256 of the whole file at its last read or write. */
export interface FreshnessLedger {
  getRecordedHash(scope: string, realPath: string): Promise<string | undefined>;
  recordHash(scope: string, realPath: string, sha256: string): Promise<void>;
}

/** Read access to the calling user's secrets (SEC-1). Values never reach the model. */
export interface SecretReader {
  getSecret(name: string): Promise<string | undefined>;
  /** Every secret value this caller can resolve, so results and errors can be redacted before the model sees them. */
  listSecretValues?(): Promise<readonly string[]>;
}

export interface OutboundHttpRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /**
   * `false`: a 3xx answer is returned as it is (its `location` header included) instead of followed, for callers that
   * must judge every hop themselves (web_page_summary checks robots.txt per origin). Default `true`.
   */
  followRedirects?: boolean;
}

export interface OutboundHttpResponse {
  status: number;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  truncated: boolean;
}

/** NET-1: the one outbound client every model- or script-initiated request goes through. */
export interface OutboundHttpClient {
  request(request: OutboundHttpRequest, signal?: AbortSignal): Promise<OutboundHttpResponse>;
}

export interface ImageGenerationRequest {
  prompt: string;
  /** e.g. `gpt-image-1`, `gemini-2.5-flash-image`; the service routes it to the provider that serves it. */
  model: string;
  /** `low` | `medium` | `high` | `auto`; providers without a quality knob ignore it. */
  quality?: string;
}

export interface GeneratedImage {
  data: Uint8Array;
  mimeType: string;
  model: string;
  /** The prompt the provider actually used, when it rewrote it. */
  revisedPrompt?: string;
}

/** IMG-1: one image per call on the configured providers' image APIs. Implemented in `providers/images/`. */
export interface ImageGenerationService {
  generateImage(request: ImageGenerationRequest, signal: AbortSignal): Promise<GeneratedImage>;
}

export interface StoredImage {
  id: string;
  /** Where the UI and API serve it, e.g. `/api/images/<id>`. */
  url: string;
  mimeType: string;
  bytes: number;
}

/** Keeps generated images so the UI and API can show them (IMG-1); the HTTP layer serves them by id. */
export interface ImageStore {
  saveImage(
    image: GeneratedImage,
    owner: { userId: string; chatId: string | undefined; callId: string },
  ): Promise<StoredImage>;
}

/**
 * How the host confines filesystem tools beyond each tool's own settings (AUTH-2): `toolport serve` confines a
 * non-admin to the chat's working directory (or refuses file tools without one); the CLI confines to `--workdir`.
 */
export interface FileAccessPolicy {
  /** Every path must also be inside one of these directories (real paths), whatever `allowedPaths` says. */
  confinedTo?: readonly string[];
  /** Where the confinement comes from, for refusals, e.g. `the chat's working directory (policy for non-admin users)`. */
  confinementSource?: string;
  /** CLI: the confinement gives way when the tool's own `allowedPaths` setting is not empty. */
  confinementYieldsToAllowedPaths?: boolean;
  /** Every filesystem tool call is refused with this (`permission_denied`, `details.policyKey`). */
  refusal?: { message: string; policyKey?: string };
  /** Regular files with more than one hard link are refused unless this is true (default true). */
  allowHardLinks?: boolean;
}

/**
 * WEB-1/YT-1: one plain completion (no tools) on one of the calling user's provider configurations, through the same
 * adapters as chat turns. Implemented in `services/text-completion-service.ts`.
 */
export interface TextCompletionRequest {
  /** The name of one of the user's provider configurations; the user's first configuration when absent. */
  providerConfig?: string;
  /** The configuration's default model when absent. */
  model?: string;
  systemPrompt: string;
  prompt: string;
  maxOutputTokens?: number;
}

export interface TextCompletionResult {
  text: string;
  /** The configuration name and model that answered. */
  providerConfig: string;
  model: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

export interface TextCompletionService {
  complete(request: TextCompletionRequest, signal: AbortSignal): Promise<TextCompletionResult>;
}

export interface ToolServices {
  /** Set by the operator's process (serve's policy, the CLI's --workdir confinement), never by a user or a model. */
  fileAccess?: FileAccessPolicy;
  /**
   * Paths no tool may read, write or list, denied on top of every tool's own `deniedPaths` (the server's data
   * directory: database, secret key, admin token). Set by the operator's process, never by a user or a model.
   */
  protectedPaths?: readonly string[];
  freshnessLedger?: FreshnessLedger;
  secrets?: SecretReader;
  http?: OutboundHttpClient;
  images?: ImageGenerationService;
  imageStore?: ImageStore;
  /** The calling user's models for tools that summarize (web_page_summary, youtube_summary). */
  textCompletion?: TextCompletionService;
  /** AGENT-1: where this call sits in a chain of delegations (absent at the top of a turn). */
  delegation?: DelegationChain;
  /** FS-6 shell sandbox knobs set by the operator's process (docs/shell-sandbox.md). */
  shellSandbox?: ShellSandboxOptions;
}

/** AGENT-1: the agents a chain of delegations has passed through, outermost first, and how many delegations deep. */
export interface DelegationChain {
  agentIds: readonly string[];
  depth: number;
}

/**
 * How shell tools are sandboxed (docs/shell-sandbox.md). Set by the operator's process (serve, the CLI), never by a
 * user or a model. `protectedPaths` are hidden inside the sandbox too.
 */
export interface ShellSandboxOptions {
  /** false: run unsandboxed (the fallback) even where a sandbox is available. */
  enabled?: boolean;
  /** Writable inside the sandbox besides the working directory (the operator policy's `writablePaths`). */
  writablePaths?: readonly string[];
  /** Where each running call leaves a small record, so a restart after a crash kills what a dead server left. */
  stateDirectory?: string;
  /** cgroup `pids.max` per call. */
  pidsMax?: number;
  /** cgroup `memory.max` (v1 `memory.limit_in_bytes`) per call. */
  memoryMaxBytes?: number;
  /**
   * When the server runs as root, the identity commands run as. Default: the owner of the chat's bound working
   * directory when that is not root, else 65534 (nobody).
   */
  uid?: number;
  gid?: number;
}

/** pino-compatible subset, so Fastify's logger can be passed straight in. */
export interface ToolportLogger {
  debug(object: Record<string, unknown>, message?: string): void;
  info(object: Record<string, unknown>, message?: string): void;
  warn(object: Record<string, unknown>, message?: string): void;
  error(object: Record<string, unknown>, message?: string): void;
}

export interface ToolContext {
  toolName: string;
  /** Unique per call; providers' call ids when a model made the call. */
  callId: string;
  userId: string;
  chatId: string | undefined;
  agentId: string | undefined;
  /** The chat's bound working directory (real path), if any. Routed tools use it only in agent mode (PATH-1). */
  workingDirectory: string | undefined;
  mode: ToolMode;
  /** Aborts on the time budget or on the caller's cancellation; `signal.reason` tells which. */
  signal: AbortSignal;
  settings: EffectiveToolSettings;
  /** Progress for MCP clients and the UI. */
  reportProgress(progress: ToolProgress): void;
  /** A partial result streamed before the final one (generate_image sends one per image). */
  emitPartialResult(partial: unknown): void;
  /**
   * AGENT-1: forwards one stream event of a sub-agent's turn to whoever runs this call (the agent loop tags it with
   * this call's id as `parentCallId`). Absent where nobody listens.
   */
  emitNestedEvent?(event: { type: string } & Record<string, unknown>): void;
  /**
   * Issue 16: whoever approves this call's `ask`s (the chat's human, the CLI prompt, an MCP elicitation), for a tool
   * that makes calls of its own: a sub-agent's turn (AGENT-1) asks the same human. Absent where nobody can approve.
   */
  approve?: ApproveCallback;
  /**
   * Hands the call's captured logs (a workspace script's `console.*`) to its caller: returned as the outcome's
   * `logs`, redacted like the result, never written to the server's log. The last call wins.
   */
  recordLogs?(text: string): void;
  services: ToolServices;
  logger: ToolportLogger;
}

/** Arguments after validation: plain JSON values keyed by argument name. */
export type ToolArguments = Record<string, unknown>;

export interface RegisteredTool<TArguments extends object = ToolArguments> {
  definition: ToolDefinition;
  /** Called with the effective settings when the offered definition depends on them (e.g. hide `quality`). */
  buildDefinition?: (settings: EffectiveToolSettings) => ToolDefinition;
  settings: ToolSettingsMetadata;
  /** Receives arguments already validated against `definition.parameters`, nulls removed (CORE-5). */
  execute(args: TArguments, context: ToolContext): Promise<unknown>;
  /** Hints for MCP clients and the UI. */
  annotations?: ToolAnnotations;
  /**
   * The tool's own cap on the serialized result (CORE-7), for a tool whose whole result must reach the model
   * (read_file's byte views). A host's `maxResultCharacters` still wins.
   */
  maxResultCharacters?: number;
  /**
   * Tools configured by a row (HTTP and agent tools): the same tool with an agent's overlay merged into its config
   * (spread), validated — it throws a `validation_failed` naming the field. Tools without it take an agent's overlay
   * as settings parameters instead.
   */
  withConfigOverlay?: (overlay: Record<string, unknown>) => RegisteredTool;
  /** Shell tools: whether their calls run sandboxed here, and why not (the capability inspector shows it). */
  describeSandbox?: (services: ToolServices) => Promise<ToolSandboxState>;
  /**
   * Issue 16: what permission rule patterns are matched against — each simple command of `command` (`shell`), the
   * whole `command` line (`powershell`) or the `path` argument (`path`). Declared by the tool itself, never inferred
   * from its name, so a code, MCP or HTTP tool named like a built-in is matched by its name. Default: the tool name.
   */
  permissionSubject?: PermissionSubjectKind;
}

/** Issue 16: how a tool's permission patterns read a call (see `RegisteredTool.permissionSubject`). */
export type PermissionSubjectKind = 'shell' | 'powershell' | 'path' | 'name';

export interface ToolSandboxState {
  sandboxed: boolean;
  /** Why not, when `sandboxed` is false. */
  reason?: string;
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * Types a tool's arguments from its own interface while keeping the registry's storage type uniform.
 * The schema is the source of truth at run time; `TArguments` must describe what it accepts.
 */
export function defineTool<TArguments extends object>(tool: RegisteredTool<TArguments>): RegisteredTool {
  return tool as unknown as RegisteredTool;
}
