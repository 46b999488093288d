import { executeTool } from '../core/execute-tool.ts';
import { isToolportError, ToolportError } from '../core/errors.ts';
import { redactSecretsDeep } from '../core/redact-secrets.ts';
import { validateToolArguments } from '../core/tool-arguments.ts';
import { TOOL_NAME_PATTERN, type RegistryEntry } from '../core/tool-registry.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import {
  maskCredentials,
  mergeCredentials,
  type ConfigCredentials,
} from '../credentials/config-credentials.ts';
import { expandSecretValues } from '../credentials/redaction-forms.ts';
import {
  HTTP_TOOL_CREDENTIALS,
  parseHttpToolConfig,
  type HttpToolConfig,
} from '../custom-tools/http-tool-config.ts';
import { renderHttpRequest } from '../custom-tools/http-tool-request.ts';
import { createHttpToolEntry } from '../custom-tools/http-tool.ts';
import type { OutboundAllowlist } from '../net/ip-address-policy.ts';
import type { HostResolver } from '../net/outbound-url.ts';
import { createSafeFetch, type SafeFetch } from '../net/safe-fetch.ts';
import type {
  CustomToolRecord,
  CustomToolRepository,
} from '../persistence/repositories/custom-tool-repository.ts';
import type { UserRepository } from '../persistence/repositories/user-repository.ts';
import { audienceAllows, type OperatorPolicy } from '../policy/operator-policy.ts';
import type { SecretService } from './secret-service.ts';
import type { UserToolSource } from './tool-catalog.ts';

export interface HttpToolServiceOptions {
  repository: CustomToolRepository;
  users: UserRepository;
  secrets: SecretService;
  credentials: ConfigCredentials;
  policy: OperatorPolicy;
  /** NET-1's operator allowlist (`TOOLPORT_OUTBOUND_ALLOW` and the policy's `outboundAllow`). */
  outboundAllowlist?: OutboundAllowlist;
  /** Names HTTP tools must not take: the built-in (and file-based custom) tools. */
  reservedNames: () => Iterable<string>;
  /** Tests inject a resolver; the system one otherwise. */
  resolve?: HostResolver;
  logger?: ToolportLogger;
}

export interface Caller {
  id: string;
  isAdmin: boolean;
}

/** What the API returns for one HTTP tool: literal credentials as `***`, secret references as their template. */
export interface HttpToolView {
  id: string;
  name: string;
  type: 'http';
  config: Record<string, unknown>;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface HttpToolDryRun {
  request: { method: string; url: string; headers: Record<string, string>; body: string | null };
  response?:
    | { ok: true; result: unknown }
    | { ok: false; error: { code: string; message: string; details?: unknown } };
}

const HTTP = 'http';

function notFound(toolId: string): ToolportError {
  return new ToolportError('not_found', `No HTTP tool ${JSON.stringify(toolId)}.`, { details: { toolId } });
}

function invalidName(name: unknown): ToolportError {
  return new ToolportError(
    'validation_failed',
    `Invalid HTTP tool: \`name\` ${JSON.stringify(name)} must be 1-64 letters, digits, "_" or "-".`,
    { details: { field: 'name' } },
  );
}

/**
 * SPEC HTTP-1: users' declarative HTTP tools — stored rows (credentials sealed), validated on every write, masked on
 * every read, turned into tools of their owner through `toolSource`, sent only through NET-1. The operator policy's
 * `customTools.http` says who may create, change, enable or send them.
 */
export class HttpToolService {
  readonly #options: HttpToolServiceOptions;
  readonly #safeFetch: SafeFetch;
  #closing: Promise<void> | undefined;

  constructor(options: HttpToolServiceOptions) {
    this.#options = options;
    this.#safeFetch = createSafeFetch({
      ...(options.outboundAllowlist === undefined ? {} : { allowlist: options.outboundAllowlist }),
      ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
    });
  }

  /** NET-1's client for this service's requests (the OpenAPI import fetches documents through it too). */
  get safeFetch(): SafeFetch {
    return this.#safeFetch;
  }

  assertAllowed(caller: Caller, action: string): void {
    if (!audienceAllows(this.#options.policy.customTools.http, caller)) {
      throw new ToolportError(
        'permission_denied',
        `The operator policy (customTools.http = "${this.#options.policy.customTools.http}") does not let you ${action} ` +
          'HTTP tools.',
        { details: { policyKey: 'customTools.http' } },
      );
    }
  }

  toView(record: CustomToolRecord): HttpToolView {
    return {
      id: record.id,
      name: record.name,
      type: HTTP,
      config: maskCredentials(record.config, HTTP_TOOL_CREDENTIALS),
      enabled: record.enabled,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }

  async list(caller: Caller): Promise<HttpToolView[]> {
    return (await this.#options.repository.list(caller.id, HTTP)).map((record) => this.toView(record));
  }

  async #get(caller: Caller, toolId: string): Promise<CustomToolRecord> {
    const record = await this.#options.repository.get(caller.id, toolId);
    // Readers check the type before the config: an agent row's config is not an HTTP config.
    if (record === undefined || record.type !== HTTP) throw notFound(toolId);
    return record;
  }

  /** Names a new HTTP tool of `caller` cannot take: built-ins and the caller's own tools. */
  async takenNames(caller: Caller): Promise<string[]> {
    const own = (await this.#options.repository.list(caller.id)).map((record) => record.name);
    return [...this.#options.reservedNames(), ...own];
  }

  async #secretNames(userId: string): Promise<Set<string>> {
    return new Set((await this.#options.secrets.list(userId)).map((secret) => secret.name));
  }

  #assertName(name: unknown): asserts name is string {
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) throw invalidName(name);
    for (const reserved of this.#options.reservedNames()) {
      if (reserved === name) {
        throw new ToolportError(
          'conflict',
          `The name ${JSON.stringify(name)} belongs to a built-in tool: choose another name for the HTTP tool.`,
          { details: { name } },
        );
      }
    }
  }

  /** Validates plaintext-or-sealed `config` (after a merge) and returns it sealed for storage. */
  async #validated(userId: string, config: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { credentials } = this.#options;
    const opened = credentials.open(userId, config, HTTP_TOOL_CREDENTIALS);
    const parsed = parseHttpToolConfig(opened, await this.#secretNames(userId));
    return credentials.seal(userId, parsed as unknown as Record<string, unknown>, HTTP_TOOL_CREDENTIALS);
  }

  /** Validates like a create without storing (the OpenAPI import's dry run). */
  async plan(caller: Caller, name: string, config: Record<string, unknown>): Promise<HttpToolConfig> {
    this.#assertName(name);
    const opened = mergeCredentials({}, config, HTTP_TOOL_CREDENTIALS);
    return parseHttpToolConfig(opened, await this.#secretNames(caller.id));
  }

  async create(
    caller: Caller,
    input: { name: unknown; config: unknown; enabled?: unknown },
  ): Promise<HttpToolView> {
    this.assertAllowed(caller, 'create');
    this.#assertName(input.name);
    if (input.enabled !== undefined && typeof input.enabled !== 'boolean') {
      throw new ToolportError('validation_failed', 'Invalid HTTP tool: `enabled` must be true or false.', {
        details: { field: 'enabled' },
      });
    }
    if (typeof input.config !== 'object' || input.config === null || Array.isArray(input.config)) {
      parseHttpToolConfig(input.config);
    }
    // `***` in a create has nothing stored to keep: mergeCredentials refuses it.
    const config = mergeCredentials({}, input.config as Record<string, unknown>, HTTP_TOOL_CREDENTIALS);
    const created = await this.#options.repository.create(caller.id, {
      name: input.name,
      type: HTTP,
      config: await this.#validated(caller.id, config),
      enabled: input.enabled ?? true,
    });
    return this.toView(created);
  }

  async update(
    caller: Caller,
    toolId: string,
    changes: { name?: unknown; config?: unknown; enabled?: unknown },
  ): Promise<HttpToolView> {
    const current = await this.#get(caller, toolId);
    const onlyDisables =
      changes.name === undefined && changes.config === undefined && changes.enabled === false;
    // Turning a tool off is always allowed (a policy that tightened must not trap users with enabled tools).
    if (!onlyDisables) this.assertAllowed(caller, 'change or enable');
    if (changes.name !== undefined) {
      this.#assertName(changes.name);
      const clash = (await this.#options.repository.list(caller.id)).find(
        (record) => record.name === changes.name && record.id !== current.id,
      );
      if (clash !== undefined) {
        throw new ToolportError(
          'conflict',
          `You already have a tool named ${JSON.stringify(changes.name)}.`,
          {
            details: { name: changes.name },
          },
        );
      }
    }
    if (changes.enabled !== undefined && typeof changes.enabled !== 'boolean') {
      throw new ToolportError('validation_failed', 'Invalid HTTP tool: `enabled` must be true or false.', {
        details: { field: 'enabled' },
      });
    }
    let config: Record<string, unknown> | undefined;
    if (changes.config !== undefined) {
      if (typeof changes.config !== 'object' || changes.config === null || Array.isArray(changes.config)) {
        throw new ToolportError(
          'validation_failed',
          'Invalid HTTP tool config: `config` must be an object.',
          {
            details: { field: 'config' },
          },
        );
      }
      const merged = mergeCredentials(
        current.config,
        changes.config as Record<string, unknown>,
        HTTP_TOOL_CREDENTIALS,
      );
      config = await this.#validated(caller.id, merged);
    }
    const updated = await this.#options.repository.update(caller.id, current.id, {
      ...(changes.name === undefined ? {} : { name: changes.name as string }),
      ...(config === undefined ? {} : { config }),
      ...(changes.enabled === undefined ? {} : { enabled: changes.enabled as boolean }),
    });
    if (updated === undefined) throw notFound(toolId);
    return this.toView(updated);
  }

  async delete(caller: Caller, toolId: string): Promise<void> {
    const current = await this.#get(caller, toolId);
    if (!(await this.#options.repository.delete(caller.id, current.id))) throw notFound(toolId);
  }

  #open(userId: string, record: CustomToolRecord): HttpToolConfig {
    return parseHttpToolConfig(this.#options.credentials.open(userId, record.config, HTTP_TOOL_CREDENTIALS));
  }

  /**
   * The dry run: the exact request one call would send (credentials masked), and with `send` the result the tool
   * would return, through executeTool (its time budget and redaction) and NET-1.
   */
  async test(
    caller: Caller,
    toolId: string,
    input: { args?: unknown; send?: boolean },
  ): Promise<HttpToolDryRun> {
    const record = await this.#get(caller, toolId);
    if (input.send === true) this.assertAllowed(caller, 'send requests with');
    const config = this.#open(caller.id, record);
    const args = validateToolArguments(config.parameters, input.args ?? {});
    const reader = this.#options.secrets.createReader(caller.id);
    let rendered;
    try {
      rendered = await renderHttpRequest(config, args, reader);
    } catch (error) {
      throw isToolportError(error)
        ? error
        : new ToolportError('execution_failed', 'The request could not be built.');
    }
    const forms = expandSecretValues(rendered.credentials);
    const request = redactSecretsDeep(
      { method: rendered.method, url: rendered.url, headers: rendered.headers, body: rendered.body ?? null },
      forms,
    ) as HttpToolDryRun['request'];
    if (input.send !== true) return { request };
    const entry = createHttpToolEntry({
      id: record.id,
      name: record.name,
      config,
      open: () => config,
      client: this.#safeFetch.client,
    });
    const outcome = await executeTool(
      { toolName: record.name, arguments: args, userId: caller.id },
      {
        registry: { get: (name) => (name === record.name ? entry.tool : undefined) },
        services: { secrets: reader },
        ...(this.#options.logger === undefined ? {} : { logger: this.#options.logger }),
      },
    );
    return {
      request,
      response: outcome.ok ? { ok: true, result: outcome.result } : { ok: false, error: outcome.error },
    };
  }

  /** Every literal credential of the user's HTTP tools, plaintext, for redaction of every tool result. */
  async literalCredentialValues(userId: string): Promise<string[]> {
    const records = await this.#options.repository.list(userId, HTTP);
    return records.flatMap((record) =>
      this.#options.credentials.literalValues(userId, record.config, HTTP_TOOL_CREDENTIALS),
    );
  }

  /** The catalog source: the owner's enabled HTTP tools, when the policy lets the owner have them. */
  readonly toolSource: UserToolSource = async (userId) => {
    const records = (await this.#options.repository.list(userId, HTTP)).filter((record) => record.enabled);
    if (records.length === 0) return [];
    const user = await this.#options.users.findById(userId);
    if (user === undefined || !audienceAllows(this.#options.policy.customTools.http, user)) return [];
    const reserved = new Set(this.#options.reservedNames());
    const entries: RegistryEntry[] = [];
    for (const record of records) {
      if (reserved.has(record.name)) continue;
      try {
        const config = this.#open(userId, record);
        entries.push(
          createHttpToolEntry({
            id: record.id,
            name: record.name,
            config,
            open: () => config,
            client: this.#safeFetch.client,
          }),
        );
      } catch (error) {
        if (!isToolportError(error)) throw error;
        this.#options.logger?.warn(
          { tool: record.name, error: error.message },
          'skipping an HTTP tool whose stored config no longer validates',
        );
      }
    }
    return entries;
  };

  /** Ends the idle keep-alive connections (shutdown); safe to call more than once. */
  close(): Promise<void> {
    this.#closing ??= this.#safeFetch.close();
    return this.#closing;
  }
}
