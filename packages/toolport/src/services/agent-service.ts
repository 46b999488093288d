import { ToolportError } from '../core/errors.ts';
import type { AgentRecord, AgentRepository } from '../persistence/repositories/agent-repository.ts';
import type { ProviderConfigRepository } from '../persistence/repositories/provider-config-repository.ts';

/**
 * AGENT-1: what an agent runs with. Every key is optional: an agent without `providerConfig` uses the turn's (or the
 * user's first) configuration, without `model` that configuration's default model, without `maxIterations` the
 * turn's limit (default 10).
 */
export interface AgentConfig {
  systemPrompt?: string;
  /** The name of one of the owner's provider configurations. */
  providerConfig?: string;
  model?: string;
  maxIterations?: number;
}

export const AGENT_CONFIG_KEYS = ['systemPrompt', 'providerConfig', 'model', 'maxIterations'] as const;
const MAX_SYSTEM_PROMPT_CHARACTERS = 100_000;
export const MAX_AGENT_ITERATIONS = 100;

export interface AgentInput {
  name?: string;
  description?: string;
  config?: Record<string, unknown>;
}

/** Agents with a validated config (SPEC API-1, seed 003). Another user's agent reads as missing (AUTH-1). */
export class AgentService {
  readonly #agents: AgentRepository;
  readonly #providers: ProviderConfigRepository;

  constructor(agents: AgentRepository, providers: ProviderConfigRepository) {
    this.#agents = agents;
    this.#providers = providers;
  }

  async create(userId: string, input: AgentInput & { name: string }): Promise<AgentRecord> {
    const config = await this.#validConfig(userId, input.config ?? {});
    return this.#agents.create(userId, {
      name: input.name,
      ...(input.description === undefined ? {} : { description: input.description }),
      config,
    });
  }

  async get(userId: string, agentId: string): Promise<AgentRecord> {
    const agent = await this.#agents.get(userId, agentId);
    if (agent === undefined) throw agentNotFound(agentId);
    return agent;
  }

  /** `config` is merged into the stored one by spread (seed 003); a key set to `null` is removed. */
  async update(userId: string, agentId: string, changes: AgentInput): Promise<AgentRecord> {
    const agent = await this.get(userId, agentId);
    let config: Record<string, unknown> | undefined;
    if (changes.config !== undefined) {
      const merged: Record<string, unknown> = { ...agent.config, ...changes.config };
      for (const [key, value] of Object.entries(changes.config)) if (value === null) delete merged[key];
      config = await this.#validConfig(userId, merged);
    }
    const updated = await this.#agents.update(userId, agentId, {
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(config === undefined ? {} : { config }),
    });
    if (updated === undefined) throw agentNotFound(agentId);
    return updated;
  }

  async #validConfig(userId: string, config: Record<string, unknown>): Promise<Record<string, unknown>> {
    const parsed = parseAgentConfig(config);
    if (parsed.providerConfig !== undefined) {
      const known = await this.#providers.getByName(userId, parsed.providerConfig);
      if (known === undefined) {
        throw invalidConfig(
          'providerConfig',
          `names no provider configuration of yours (${JSON.stringify(parsed.providerConfig)}); GET /api/providers lists them`,
        );
      }
    }
    return { ...parsed };
  }
}

/** The agent's config, checked key by key; a bad value is a 422 naming `config.<key>`. */
export function parseAgentConfig(config: Record<string, unknown>): AgentConfig {
  for (const key of Object.keys(config)) {
    if (!(AGENT_CONFIG_KEYS as readonly string[]).includes(key))
      throw invalidConfig(key, `is not an agent setting; use ${AGENT_CONFIG_KEYS.join(', ')}`);
  }
  const parsed: AgentConfig = {};
  const { systemPrompt, providerConfig, model, maxIterations } = config;
  if (systemPrompt !== undefined) {
    if (typeof systemPrompt !== 'string' || systemPrompt.length > MAX_SYSTEM_PROMPT_CHARACTERS)
      throw invalidConfig(
        'systemPrompt',
        `must be text of at most ${MAX_SYSTEM_PROMPT_CHARACTERS} characters`,
      );
    parsed.systemPrompt = systemPrompt;
  }
  if (providerConfig !== undefined) {
    if (typeof providerConfig !== 'string' || providerConfig.trim() === '')
      throw invalidConfig('providerConfig', 'must be the name of one of your provider configurations');
    parsed.providerConfig = providerConfig;
  }
  if (model !== undefined) {
    if (typeof model !== 'string' || model.trim() === '' || model.length > 200)
      throw invalidConfig('model', 'must be a model name of 1-200 characters');
    parsed.model = model;
  }
  if (maxIterations !== undefined) {
    if (
      !Number.isInteger(maxIterations) ||
      (maxIterations as number) < 1 ||
      (maxIterations as number) > MAX_AGENT_ITERATIONS
    )
      throw invalidConfig('maxIterations', `must be an integer from 1 to ${MAX_AGENT_ITERATIONS}`);
    parsed.maxIterations = maxIterations as number;
  }
  return parsed;
}

function invalidConfig(key: string, reason: string): ToolportError {
  return new ToolportError('validation_failed', `config.${key} ${reason}.`, {
    details: { argument: `config.${key}` },
  });
}

export function agentNotFound(agentId: string): ToolportError {
  return new ToolportError('not_found', `No agent ${JSON.stringify(agentId)}.`, { details: { agentId } });
}
