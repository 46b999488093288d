import type { ErrorCode } from './error-codes.ts';
import { ToolportError, isToolportError } from './errors.ts';
import { runApprovalGate } from './approval-gate.ts';
import type { ToolExecutionRecorder } from './execution-recorder.ts';
import type { ApprovalAudit, ApproveCallback, PermissionCheck } from './tool-approval.ts';
import { toolDeadlines } from './deadline-scheduler.ts';
import { silentLogger } from './logger.ts';
import {
  containsSecretForm,
  getSecretRedactor,
  redactSecretsDeep,
  redactSecretsDeepIfPresent,
  type SecretRedactor,
} from './redact-secrets.ts';
import {
  capToolResultText,
  DEFAULT_MAX_RESULT_CHARACTERS,
  serializeToolResult,
  stringifyToolResult,
  type SerializedToolResult,
} from './serialize-result.ts';
import { getSafeEffectiveToolSettings, getToolTimeoutMs } from './settings-policy.ts';
import { parseToolArgumentsJson, validateToolArguments } from './tool-arguments.ts';
import { defaultToolRegistry, type ToolLookup } from './tool-registry.ts';
import type {
  EffectiveToolSettings,
  ToolContext,
  ToolMode,
  ToolLogEntry,
  ToolProgress,
  ToolServices,
  ToolSettingsInput,
  ToolportLogger,
} from './tool-types.ts';

/** An agent's tool selection (CORE-4): an allowlist and explicit denials. */
export interface AgentToolPermissions {
  /** When set, only these tools are enabled for the agent. */
  allowedTools?: readonly string[];
  /** Tools the agent may never call, even when the user enabled them. */
  deniedTools?: readonly string[];
}

export interface ExecuteToolRequest {
  toolName: string;
  /** Parsed arguments, or the model's raw JSON text (parsed here; empty text means `{}`). */
  arguments: unknown;
  userId: string;
  chatId?: string;
  agentId?: string;
  /** The provider's call id, when a model made the call. */
  callId?: string;
  workingDirectory?: string;
  mode?: ToolMode;
  /** The caller's cancellation (user cancel, closed stream). Reported as `aborted`, never as `timeout`. */
  signal?: AbortSignal;
  /** The user's stored settings for this tool (coerced; corrupt values fall back to defaults). */
  savedSettings?: ToolSettingsInput;
  /** Overrides for this call (validated strictly; the CLI's `--settings`). */
  settingsOverrides?: ToolSettingsInput;
  agentPermissions?: AgentToolPermissions;
  onProgress?: (progress: ToolProgress) => void;
  /** What the tool reports while it runs (`context.log`), redacted. */
  onLog?: (entry: ToolLogEntry) => void;
  onPartialResult?: (partial: unknown) => void;
  /** AGENT-1: a sub-agent's stream events, forwarded inside this call (redacted like partial results). */
  onNestedEvent?: (event: NestedToolEvent) => void;
  /** AGENT-1: the delegating call, when a sub-agent's turn makes this call (recorded with the execution). */
  parentCallId?: string;
  /**
   * After the caller aborts (`signal`), how long to wait for the tool's own result before answering `aborted`. A tool
   * that stops on its signal and reports what it did (a shell: its partial output with `termination: "aborted"`)
   * then returns that result, as `toolport tools run` does on Ctrl-C. Default 0: answer `aborted` at once.
   */
  abortGraceMs?: number;
  /** Issue 16: the permission rules for this call (allow, ask or deny), checked after the arguments validate. */
  permission?: PermissionCheck;
  /** Issue 16: asked when a rule says `ask`; without it an `ask` is refused. The wait is not part of the budget. */
  approve?: ApproveCallback;
}

/** A stream event of a sub-agent's turn, as a tool forwards it (`type` plus the event's own fields). */
export type NestedToolEvent = { type: string } & Record<string, unknown>;

export interface ExecuteToolEnvironment {
  registry?: ToolLookup;
  recorder?: ToolExecutionRecorder;
  services?: ToolServices;
  logger?: ToolportLogger;
  maxResultCharacters?: number;
}

export interface ToolErrorPayload {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

interface ToolExecutionOutcomeBase {
  callId: string;
  toolName: string;
  /** The serialized text the model receives (CORE-7). */
  output: string;
  durationMs: number;
  /** What the tool logged for its caller (a workspace script's `console.*`), redacted; absent when nothing was. */
  logs?: string;
}

export interface ToolExecutionSuccess extends ToolExecutionOutcomeBase {
  ok: true;
  /** The structured result, for the UI and API. */
  result: unknown;
  truncated: boolean;
}

export interface ToolExecutionFailure extends ToolExecutionOutcomeBase {
  ok: false;
  error: ToolErrorPayload;
}

export type ToolExecutionOutcome = ToolExecutionSuccess | ToolExecutionFailure;

/** Why the call's signal aborted; tools may read `context.signal.reason` to tell a timeout from a cancel. */
export class ToolTimeoutReason extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`The tool ran longer than its time budget of ${timeoutMs / 1000} s.`);
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

export class ToolCancelledReason extends Error {
  constructor(cause: unknown) {
    super('The call was cancelled by the caller.', { cause });
    this.name = 'AbortError';
  }
}

// Call ids: a random per-process prefix and a counter — unique, and cheaper than a UUID per call. The prefix needs to
// be unique, not secret (every lookup by call id is scoped to its user), so it comes from Math.random (seeded per
// process from the OS): node:crypto would add about 8 ms to a one-shot CLI's start-up (issue 11 item 1).
const CALL_ID_PREFIX = `call_${Math.floor(Math.random() * 2 ** 48)
  .toString(16)
  .padStart(12, '0')}_`;
let callCounter = 0;

function errorPayload(error: unknown): ToolErrorPayload {
  if (isToolportError(error)) {
    return error.details === undefined || Object.keys(error.details).length === 0
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, details: error.details };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: 'execution_failed',
    message: message === '' ? 'The tool failed without a message.' : message,
  };
}

/**
 * SPEC CORE-6: looks the tool up, checks it is enabled for this user (and agent), merges settings, validates the
 * arguments, runs the executor under its time budget with a signal that also carries the caller's cancellation, and
 * returns a structured result or a structured error. Never throws for a tool's failure. Records every execution.
 */
export async function executeTool(
  request: ExecuteToolRequest,
  environment: ExecuteToolEnvironment = {},
): Promise<ToolExecutionOutcome> {
  const startTime = performance.now();
  const registry = environment.registry ?? defaultToolRegistry;
  const logger = environment.logger ?? silentLogger;
  const services = environment.services ?? {};
  const callId = request.callId ?? `${CALL_ID_PREFIX}${(callCounter += 1)}`;
  const { toolName } = request;
  let callLogs: string | undefined;
  let approval: ApprovalAudit | undefined;

  // Synchronous unless secrets must be redacted: the common path costs no extra await (CORE-6 overhead budget).
  const finishWith = (
    outcome: { ok: true; result: unknown } | { ok: false; error: ToolErrorPayload },
    secrets: readonly string[],
  ): ToolExecutionOutcome => {
    const durationMs = performance.now() - startTime;
    let finished: ToolExecutionOutcome;
    if (outcome.ok) {
      const maxCharacters =
        environment.maxResultCharacters ?? tool?.maxResultCharacters ?? DEFAULT_MAX_RESULT_CHARACTERS;
      let result = outcome.result;
      let serialized: SerializedToolResult;
      let output: string;
      const redactor = getSecretRedactor(secrets);
      const text = stringifyToolResult(result);
      if (!containsSecretForm(text, redactor)) {
        // The common case: no secret in the result's text, so the result needs no copy and the text no pass.
        serialized = capToolResultText(text, maxCharacters);
        output = serialized.text;
      } else {
        // SEC-1: the structured result is redacted too (SSE, MCP structuredContent and the API show it).
        result = redactSecretsDeep(result, secrets);
        serialized = serializeToolResult(result, maxCharacters);
        output = redactor.redact(serialized.text);
      }
      finished = {
        ok: true,
        callId,
        toolName,
        result,
        output,
        truncated: serialized.truncated,
        durationMs,
      };
    } else {
      // Messages and details both: a tool's error may quote the response that echoed a secret.
      const error =
        secrets.length > 0 ? (redactSecretsDeep(outcome.error, secrets) as ToolErrorPayload) : outcome.error;
      finished = {
        ok: false,
        callId,
        toolName,
        error,
        output: JSON.stringify({ error: { code: error.code, message: error.message } }),
        durationMs,
      };
    }
    if (callLogs !== undefined && callLogs !== '') {
      finished.logs = secrets.length > 0 ? getSecretRedactor(secrets).redact(callLogs) : callLogs;
    }
    environment.recorder?.record({
      callId,
      toolName,
      userId: request.userId,
      chatId: request.chatId,
      agentId: request.agentId,
      ...(request.parentCallId === undefined ? {} : { parentCallId: request.parentCallId }),
      startedAt: new Date(performance.timeOrigin + startTime),
      durationMs,
      outcome: finished.ok ? 'ok' : finished.error.code,
      resultSize: finished.output.length,
      ...(approval === undefined ? {} : { approval }),
    });
    return finished;
  };
  const listSecretValues = services.secrets?.listSecretValues?.bind(services.secrets);
  // Loaded once per call, before the tool runs, so partial results can be redacted synchronously as they stream.
  // If they cannot be loaded, nothing the tool returns can be shown safely: the call fails closed.
  let secretValues: readonly string[] | undefined = listSecretValues === undefined ? [] : undefined;
  const loadSecrets = async (): Promise<readonly string[]> => {
    secretValues ??= await listSecretValues!();
    return secretValues;
  };
  const secretsUnavailable = (error: unknown): ToolExecutionOutcome => {
    logger.error({ tool: toolName, error: String(error) }, 'could not load secret values for redaction');
    return finishWith(
      {
        ok: false,
        error: {
          code: 'internal_error',
          message: 'The secrets needed to redact this result could not be loaded; the result was withheld.',
        },
      },
      [],
    );
  };
  const finish = (
    outcome: { ok: true; result: unknown } | { ok: false; error: ToolErrorPayload },
  ): ToolExecutionOutcome | Promise<ToolExecutionOutcome> =>
    secretValues !== undefined
      ? finishWith(outcome, secretValues)
      : loadSecrets().then((secrets) => finishWith(outcome, secrets), secretsUnavailable);

  const tool = registry.get(toolName);
  if (tool === undefined) {
    return finish({
      ok: false,
      error: {
        code: 'not_found',
        message: `Unknown tool ${JSON.stringify(toolName)}. Call one of the tools you were given.`,
      },
    });
  }

  const permissions = request.agentPermissions;
  if (permissions?.deniedTools?.includes(toolName)) {
    return finish({
      ok: false,
      error: { code: 'permission_denied', message: `The agent is not permitted to call ${toolName}.` },
    });
  }
  if (permissions?.allowedTools !== undefined && !permissions.allowedTools.includes(toolName)) {
    return finish({
      ok: false,
      error: { code: 'disabled', message: `${toolName} is not enabled for this agent.` },
    });
  }

  let settings: EffectiveToolSettings;
  try {
    settings = getSafeEffectiveToolSettings(tool, request.savedSettings, request.settingsOverrides, logger);
  } catch (error) {
    return finish({ ok: false, error: errorPayload(error) });
  }
  if (!settings.enabled) {
    return finish({
      ok: false,
      error: {
        code: 'disabled',
        message: `${toolName} is disabled. Enable it in the tool settings to use it.`,
      },
    });
  }

  let args;
  try {
    const raw =
      typeof request.arguments === 'string' ? parseToolArgumentsJson(request.arguments) : request.arguments;
    const definition = tool.buildDefinition ? tool.buildDefinition(settings) : tool.definition;
    args = validateToolArguments(definition.parameters, raw);
  } catch (error) {
    return finish({ ok: false, error: errorPayload(error) });
  }

  const parentSignal = request.signal;
  if (request.permission !== undefined) {
    const gate = await runApprovalGate(request.permission, request.approve, {
      callId,
      toolName,
      subjectKind: tool.permissionSubject,
      arguments: args as Record<string, unknown>,
      userId: request.userId,
      chatId: request.chatId,
      agentId: request.agentId,
      workingDirectory: request.workingDirectory,
      signal: parentSignal,
    });
    approval = gate.audit;
    if (gate.refusal !== undefined) return finish({ ok: false, error: gate.refusal });
  }
  if (parentSignal?.aborted) {
    return finish({
      ok: false,
      error: { code: 'aborted', message: `${toolName} was cancelled before it started.` },
    });
  }

  if (secretValues === undefined) {
    try {
      await loadSecrets();
    } catch (error) {
      return secretsUnavailable(error);
    }
  }
  const secretsForCall = secretValues ?? [];
  // The tool's log lines are redacted too: a log shipper is one more place a secret must not reach.
  const toolLogger = secretsForCall.length > 0 ? redactingLogger(logger, secretsForCall) : logger;

  const timeoutMs = getToolTimeoutMs(settings);
  const controller = new AbortController();
  let abortReason: Error | undefined;
  // The race below settles through `stopRace` directly (not a listener on the signal: EventTarget listeners are
  // costly on this path).
  let stopRace: ((reason: Error) => void) | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const graceMs = request.abortGraceMs ?? 0;
  const abortCall = (reason: Error): void => {
    if (abortReason !== undefined) return;
    abortReason = reason;
    controller.abort(reason);
    if (graceMs > 0 && reason instanceof ToolCancelledReason) {
      graceTimer = setTimeout(() => stopRace?.(reason), graceMs);
    } else {
      stopRace?.(reason);
    }
  };
  const deadline = toolDeadlines.schedule(timeoutMs, () => abortCall(new ToolTimeoutReason(timeoutMs)));
  const onParentAbort = (): void => abortCall(new ToolCancelledReason(parentSignal?.reason));
  parentSignal?.addEventListener('abort', onParentAbort, { once: true });

  // Progress and log lines after the outcome would reach a client after the response (MCP forbids late progress).
  let settled = false;
  const context: ToolContext = {
    toolName,
    callId,
    userId: request.userId,
    chatId: request.chatId,
    agentId: request.agentId,
    workingDirectory: request.workingDirectory,
    mode: request.mode ?? 'chat',
    signal: controller.signal,
    settings,
    reportProgress: (progress) => {
      if (abortReason !== undefined || settled || request.onProgress === undefined) return;
      request.onProgress(
        secretsForCall.length > 0 && progress.message !== undefined
          ? { ...progress, message: getSecretRedactor(secretsForCall).redact(progress.message) }
          : progress,
      );
    },
    log: (level, message) => {
      if (abortReason !== undefined || settled || request.onLog === undefined) return;
      const text = String(message);
      request.onLog({
        level,
        message: secretsForCall.length > 0 ? getSecretRedactor(secretsForCall).redact(text) : text,
      });
    },
    emitPartialResult: (partial) => {
      if (abortReason === undefined) request.onPartialResult?.(redactSecretsDeep(partial, secretsForCall));
    },
    emitNestedEvent: (event) => {
      if (abortReason === undefined)
        request.onNestedEvent?.(redactSecretsDeep(event, secretsForCall) as NestedToolEvent);
    },
    recordLogs: (text) => {
      callLogs = text;
    },
    ...(request.approve === undefined ? {} : { approve: request.approve }),
    services,
    logger: toolLogger,
  };

  try {
    // Settles with the executor, or rejects as soon as the budget or the caller aborts — even when the tool ignores
    // its signal. A late rejection of the executor after that is swallowed by the then() below.
    const result = await new Promise<unknown>((resolve, reject) => {
      stopRace = reject;
      tool.execute(args, context).then(resolve, reject);
    });
    // Within the grace period after a cancellation, the tool's own account of it wins.
    if (abortReason !== undefined && !(graceMs > 0 && abortReason instanceof ToolCancelledReason)) {
      return finish({ ok: false, error: abortErrorFor(abortReason, toolName) });
    }
    return finish({ ok: true, result });
  } catch (error) {
    if (abortReason !== undefined) return finish({ ok: false, error: abortErrorFor(abortReason, toolName) });
    if (!isToolportError(error))
      toolLogger.debug({ tool: toolName, error: String(error) }, 'tool execution failed');
    return finish({ ok: false, error: errorPayload(error) });
  } finally {
    settled = true;
    toolDeadlines.cancel(deadline);
    clearTimeout(graceTimer);
    parentSignal?.removeEventListener('abort', onParentAbort);
  }
}

/** The last redacting wrapper built per logger: a user's calls reuse one secret set, so one wrapper serves them. */
const redactingLoggers = new WeakMap<ToolportLogger, { redactor: SecretRedactor; logger: ToolportLogger }>();

/** `logger` with every field and message redacted (SEC-1: logs are a surface too). */
export function redactingLogger(logger: ToolportLogger, secrets: readonly string[]): ToolportLogger {
  // Nothing reaches the silent logger, so there is nothing to redact (and no wrapper to build per call).
  if (logger === silentLogger) return logger;
  // getSecretRedactor returns the same redactor for the same set, so identity says "same secrets".
  const redactor = getSecretRedactor(secrets);
  const cached = redactingLoggers.get(logger);
  if (cached?.redactor === redactor) return cached.logger;
  const level =
    (write: ToolportLogger['info']): ToolportLogger['info'] =>
    (object, message) =>
      write(
        redactSecretsDeepIfPresent(object, secrets) as Record<string, unknown>,
        message === undefined ? undefined : redactor.redact(message),
      );
  const wrapped: ToolportLogger = {
    debug: level(logger.debug.bind(logger)),
    info: level(logger.info.bind(logger)),
    warn: level(logger.warn.bind(logger)),
    error: level(logger.error.bind(logger)),
  };
  redactingLoggers.set(logger, { redactor, logger: wrapped });
  return wrapped;
}

function abortErrorFor(reason: Error, toolName: string): ToolErrorPayload {
  if (reason instanceof ToolTimeoutReason) {
    return {
      code: 'timeout',
      message: `${toolName} did not finish within its time budget of ${reason.timeoutMs / 1000} s and was cancelled.`,
      details: { timeoutMs: reason.timeoutMs },
    };
  }
  return { code: 'aborted', message: `${toolName} was cancelled by the caller.` };
}

/** Throw from a tool for an expected failure the model can act on. */
export function toolFailure(
  message: string,
  code: ErrorCode = 'execution_failed',
  details?: Record<string, unknown>,
): ToolportError {
  return new ToolportError(code, message, details === undefined ? {} : { details });
}
