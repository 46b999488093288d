import { ToolportError } from '../core/errors.ts';
import { API_KEY_ENVIRONMENT_VARIABLES } from '../providers/create-provider-adapter.ts';
import type {
  NewProviderConfig,
  ProviderConfigRecord,
  ProviderConfigRepository,
} from '../persistence/repositories/provider-config-repository.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import { createSafeFetch, type SafeFetch } from '../net/safe-fetch.ts';
import { DEFAULT_OPERATOR_POLICY, type OperatorPolicy } from '../policy/operator-policy.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import { assertProviderBaseUrlAllowed, providerRequestsAreChecked } from '../policy/provider-base-url.ts';
import { assertValidSecretName, type SecretService } from './secret-service.ts';

/** The wire formats a stored configuration may name (PROV-5); `openai` is the Responses API. */
export const CONFIGURABLE_PROVIDERS = ['openai', 'openai-chat', 'anthropic', 'gemini'] as const;
export type ConfigurableProvider = (typeof CONFIGURABLE_PROVIDERS)[number];

const CONFIG_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface ProviderConfigInput {
  name?: string;
  provider?: string;
  baseUrl?: string | null;
  defaultModel?: string;
  apiKeySecret?: string | null;
}

/** A configuration ready to open an adapter: the key read from the user's secrets (or the operator's fallback). */
export interface ResolvedProviderConfig {
  config: ProviderConfigRecord & { provider: ConfigurableProvider };
  apiKey: string;
  /**
   * Set for a non-admin's configuration (AUTH-2): the SDK must send every request through it — NET-1's safe fetch,
   * which checks the address it connects to, so a base URL that rebinds to loopback or metadata gets nowhere.
   */
  fetch?: typeof globalThis.fetch;
}

export interface ProviderConfigServiceOptions {
  repository: ProviderConfigRepository;
  secrets: SecretService;
  /**
   * The operator's opt-in fallback (`TOOLPORT_PROVIDER_KEYS_FROM_ENV=true`): when a configuration names no secret,
   * the provider's usual variable (`OPENAI_API_KEY`, …) from this environment is used. Off by default, because on a
   * shared server it would let every user spend the operator's key.
   */
  fallbackEnvironment?: Readonly<Record<string, string | undefined>>;
  /** AUTH-2: non-admins' base URLs under NET-1 with `outboundAllow` (default `DEFAULT_OPERATOR_POLICY`). */
  policy?: OperatorPolicy;
}

/** Per-user provider configurations. The API key lives only in the secrets store (SEC-1) and is never returned. */
export class ProviderConfigService {
  readonly #repository: ProviderConfigRepository;
  readonly #secrets: SecretService;
  readonly #fallbackEnvironment: Readonly<Record<string, string | undefined>> | undefined;
  readonly #policy: OperatorPolicy;
  #safeFetch: SafeFetch | undefined;

  constructor(options: ProviderConfigServiceOptions) {
    this.#repository = options.repository;
    this.#secrets = options.secrets;
    this.#fallbackEnvironment = options.fallbackEnvironment;
    this.#policy = options.policy ?? DEFAULT_OPERATOR_POLICY;
  }

  /** Closes the safe fetch's connections (server shutdown). */
  async close(): Promise<void> {
    await this.#safeFetch?.close();
    this.#safeFetch = undefined;
  }

  #fetchFor(user: PolicySubject): typeof globalThis.fetch | undefined {
    if (!providerRequestsAreChecked(this.#policy, user)) return undefined;
    this.#safeFetch ??= createSafeFetch({ allowlist: parseOutboundAllowlist(this.#policy.outboundAllow) });
    return this.#safeFetch.fetch;
  }

  list(userId: string): Promise<ProviderConfigRecord[]> {
    return this.#repository.list(userId);
  }

  async get(userId: string, id: string): Promise<ProviderConfigRecord> {
    const config = await this.#repository.get(userId, id);
    if (config === undefined) throw providerConfigNotFound(id);
    return config;
  }

  async create(user: PolicySubject, input: ProviderConfigInput): Promise<ProviderConfigRecord> {
    const userId = user.id;
    if (input.provider === undefined) throw invalid('provider', 'is required');
    if (input.defaultModel === undefined) throw invalid('defaultModel', 'is required');
    const config: NewProviderConfig = {
      name: input.name ?? input.provider,
      provider: input.provider,
      baseUrl: input.baseUrl ?? null,
      defaultModel: input.defaultModel,
      apiKeySecret: input.apiKeySecret ?? null,
    };
    validate(config);
    await assertProviderBaseUrlAllowed(this.#policy, user, config.baseUrl);
    const created = await this.#repository.create(userId, config);
    if (created === undefined) throw duplicateName(config.name);
    return created;
  }

  async update(user: PolicySubject, id: string, input: ProviderConfigInput): Promise<ProviderConfigRecord> {
    const userId = user.id;
    const current = await this.get(userId, id);
    const merged: NewProviderConfig = {
      name: input.name ?? current.name,
      provider: input.provider ?? current.provider,
      baseUrl: input.baseUrl === undefined ? current.baseUrl : input.baseUrl,
      defaultModel: input.defaultModel ?? current.defaultModel,
      apiKeySecret: input.apiKeySecret === undefined ? current.apiKeySecret : input.apiKeySecret,
    };
    validate(merged);
    await assertProviderBaseUrlAllowed(this.#policy, user, merged.baseUrl);
    if (merged.name !== current.name && (await this.#repository.getByName(userId, merged.name)) !== undefined)
      throw duplicateName(merged.name);
    const updated = await this.#repository.update(userId, id, merged);
    if (updated === undefined) throw providerConfigNotFound(id);
    return updated;
  }

  async delete(userId: string, id: string): Promise<void> {
    if (!(await this.#repository.delete(userId, id))) throw providerConfigNotFound(id);
  }

  /**
   * The configuration a turn uses: the one named `name`, else the user's oldest. The key comes from the named secret;
   * without one, from the operator's fallback environment if enabled, else a placeholder when a base URL is set
   * (local OpenAI-compatible servers take no key).
   */
  async resolve(user: PolicySubject, name?: string): Promise<ResolvedProviderConfig> {
    const userId = user.id;
    const config =
      name === undefined
        ? (await this.#repository.list(userId))[0]
        : await this.#repository.getByName(userId, name);
    if (config === undefined) {
      throw new ToolportError(
        'validation_failed',
        name === undefined
          ? 'No provider is configured: add one with POST /api/providers first.'
          : `No provider configuration named ${JSON.stringify(name)}. GET /api/providers lists yours.`,
        { details: { argument: 'provider' } },
      );
    }
    const provider = config.provider as ConfigurableProvider;
    let apiKey: string | undefined;
    if (config.apiKeySecret !== null) {
      apiKey = await this.#secrets.createReader(userId).getSecret(config.apiKeySecret);
      if (apiKey === undefined) {
        throw new ToolportError(
          'validation_failed',
          `Provider ${JSON.stringify(config.name)} reads its API key from the secret ${JSON.stringify(
            config.apiKeySecret,
          )}, which does not exist. Set it with PUT /api/secrets/${config.apiKeySecret}.`,
          { details: { argument: 'apiKeySecret' } },
        );
      }
    } else {
      const variable = API_KEY_ENVIRONMENT_VARIABLES[provider];
      const fromEnvironment = this.#fallbackEnvironment?.[variable];
      if (fromEnvironment !== undefined && fromEnvironment !== '') apiKey = fromEnvironment;
      else if (config.baseUrl !== null) apiKey = 'no-key';
      else {
        throw new ToolportError(
          'validation_failed',
          `Provider ${JSON.stringify(config.name)} has no API key: store it as a secret and set apiKeySecret to its name.`,
          { details: { argument: 'apiKeySecret' } },
        );
      }
    }
    const fetch = this.#fetchFor(user);
    return { config: { ...config, provider }, apiKey, ...(fetch === undefined ? {} : { fetch }) };
  }
}

function validate(config: NewProviderConfig): void {
  if (!CONFIG_NAME_PATTERN.test(config.name))
    throw invalid('name', 'must be 1-64 letters, digits, "_", "." or "-", starting with a letter or digit');
  if (!(CONFIGURABLE_PROVIDERS as readonly string[]).includes(config.provider))
    throw invalid('provider', `must be one of ${CONFIGURABLE_PROVIDERS.join(', ')}`);
  if (config.defaultModel.trim() === '') throw invalid('defaultModel', 'must not be empty');
  if (config.baseUrl !== null) {
    let url: URL | undefined;
    try {
      url = new URL(config.baseUrl);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw invalid('baseUrl', 'must be an http(s) URL');
  }
  if (config.apiKeySecret !== null) assertValidSecretName(config.apiKeySecret);
}

function invalid(argument: string, reason: string): ToolportError {
  return new ToolportError('validation_failed', `${argument} ${reason}.`, { details: { argument } });
}

function duplicateName(name: string): ToolportError {
  return new ToolportError(
    'conflict',
    `You already have a provider configuration named ${JSON.stringify(name)}.`,
    {
      details: { name },
    },
  );
}

function providerConfigNotFound(id: string): ToolportError {
  return new ToolportError('not_found', `No provider configuration ${JSON.stringify(id)}.`, {
    details: { id },
  });
}
