import { isToolportError, ToolportError } from '../core/errors.ts';
import { redactSecretsDeep, redactSecretsInText } from '../core/redact-secrets.ts';
import {
  MAX_TOOL_TIMEOUT_SECONDS,
  MIN_TOOL_TIMEOUT_SECONDS,
  TIMEOUT_SECONDS_DESCRIPTOR,
} from '../core/settings-policy.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type {
  OutboundHttpClient,
  RegisteredTool,
  SecretReader,
  ToolArguments,
  ToolContext,
} from '../core/tool-types.ts';
import { expandSecretValues, redactDeepIfPresent } from '../credentials/redaction-forms.ts';
import { DEFAULT_HTTP_TOOL_TIMEOUT_MS, type HttpToolConfig } from './http-tool-config.ts';
import {
  compileHttpRequest,
  type HttpRequestRenderer,
  type RenderedHttpRequest,
} from './http-tool-request.ts';
import { shapeHttpToolResult } from './http-tool-response.ts';

/** Room for the whole JSON a `responseMapping` reads; the model still gets at most 100,000 characters. */
const MAX_HTTP_TOOL_RESPONSE_BYTES = 5 * 1024 * 1024;

export interface HttpToolEntryOptions {
  /** The row: id and name. */
  id: string;
  name: string;
  /** The validated config, credentials still sealed: what the definition shows (description, parameters). */
  config: HttpToolConfig;
  /** The same config with credentials decrypted, read only when a call runs. */
  open(): HttpToolConfig;
  /** NET-1's client: every request goes through it. */
  client: OutboundHttpClient;
}

/** Redacts every form of the call's credentials; anything that is not our own error is replaced, never passed on. */
export function redactHttpToolError(error: unknown, forms: readonly string[]): ToolportError {
  if (!isToolportError(error)) {
    return new ToolportError('execution_failed', 'The HTTP tool call failed unexpectedly.');
  }
  return new ToolportError(error.code, redactSecretsInText(error.message, forms), {
    ...(error.details === undefined
      ? {}
      : { details: redactSecretsDeep(error.details, forms) as Record<string, unknown> }),
  });
}

/**
 * A reader lives for one runtime (a turn, an API call, an MCP session's listing): the secrets it resolved are kept for
 * that lifetime, so repeated calls do not decrypt and query the same row each time.
 */
const secretCaches = new WeakMap<SecretReader, Map<string, Promise<string | undefined>>>();

function cachingReader(reader: SecretReader | undefined): SecretReader | undefined {
  if (reader === undefined) return undefined;
  let cache = secretCaches.get(reader);
  if (cache === undefined) secretCaches.set(reader, (cache = new Map()));
  const values = cache;
  return {
    getSecret: (name) => {
      let value = values.get(name);
      if (value === undefined) {
        value = reader.getSecret(name);
        values.set(name, value);
        // A missing secret or a failed lookup is not remembered: the next call asks again.
        value.then(
          (found) => found === undefined && values.delete(name),
          () => values.delete(name),
        );
      }
      return value;
    },
  };
}

/** One call: render, send through NET-1, shape, redact. Exported for the dry run's `send: true`. */
export async function runHttpToolCall(
  config: HttpToolConfig,
  render: HttpRequestRenderer,
  args: ToolArguments,
  context: Pick<ToolContext, 'signal' | 'services' | 'logger' | 'toolName'>,
  client: OutboundHttpClient,
): Promise<unknown> {
  let rendered: RenderedHttpRequest | undefined;
  let forms: string[] = [];
  try {
    rendered = await render(args, cachingReader(context.services.secrets));
    forms = expandSecretValues(rendered.credentials);
    const response = await client.request(
      {
        url: rendered.url,
        method: rendered.method,
        headers: rendered.headers,
        ...(rendered.body === undefined ? {} : { body: rendered.body }),
        timeoutMs: config.timeout ?? DEFAULT_HTTP_TOOL_TIMEOUT_MS,
        maxResponseBytes: MAX_HTTP_TOOL_RESPONSE_BYTES,
      },
      context.signal,
    );
    // The host only: paths and queries carry arguments, which may be personal data.
    context.logger.debug(
      {
        tool: context.toolName,
        method: rendered.method,
        host: hostOf(rendered.url),
        status: response.status,
      },
      'HTTP tool call',
    );
    // executeTool redacts with the reader's values too; this pass also covers values composed for this request
    // (Basic's whole `user:password`) and hosts whose reader cannot list secrets.
    return redactDeepIfPresent(shapeHttpToolResult(config, response), forms);
  } catch (error) {
    throw redactHttpToolError(error, forms);
  }
}

function hostOf(url: string): string {
  const start = url.indexOf('//') + 2;
  const end = url.slice(start).search(/[/?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, start + end);
}

function defaultTimeoutSeconds(config: HttpToolConfig): number {
  const requestSeconds = Math.ceil((config.timeout ?? DEFAULT_HTTP_TOOL_TIMEOUT_MS) / 1000);
  // The call's budget outlasts the request's own timeout, so the request reports its timeout first.
  return Math.min(MAX_TOOL_TIMEOUT_SECONDS, Math.max(MIN_TOOL_TIMEOUT_SECONDS, requestSeconds + 5));
}

/** SPEC HTTP-1: a stored `type: 'http'` row as a tool of its owner. */
export function createHttpToolEntry(options: HttpToolEntryOptions): RegistryEntry {
  const { config } = options;
  const timeoutSeconds = defaultTimeoutSeconds(config);
  let compiled: { config: HttpToolConfig; render: HttpRequestRenderer } | undefined;
  const tool: RegisteredTool = {
    definition: { name: options.name, description: config.description, parameters: config.parameters },
    settings: {
      title: options.name,
      description: config.description,
      category: 'custom',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { timeoutSeconds },
      parameterDescriptors: [{ ...TIMEOUT_SECONDS_DESCRIPTOR, default: timeoutSeconds }],
    },
    annotations: {
      readOnlyHint: config.method === 'GET',
      destructiveHint: config.method === 'DELETE',
      idempotentHint: config.method !== 'POST' && config.method !== 'PATCH',
      openWorldHint: true,
    },
    execute: (args, context) => {
      // Opened and compiled on the first call of this listing (a runtime), then reused.
      if (compiled === undefined) {
        const opened = options.open();
        compiled = { config: opened, render: compileHttpRequest(opened) };
      }
      return runHttpToolCall(compiled.config, compiled.render, args, context, options.client);
    },
  };
  return { tool, source: { kind: 'http', origin: `http-tool:${options.id}` } };
}
