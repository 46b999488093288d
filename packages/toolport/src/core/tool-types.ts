/**
 * The core types of SPEC CORE-1. `core/` imports nothing else of ours: every service a tool may use (freshness
 * ledger, secrets, outbound HTTP) is an interface here, implemented by later layers.
 */

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
}

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

export interface ToolServices {
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
