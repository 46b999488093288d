import { ToolportError } from '../core/errors.ts';
import { assertValidToolName, type RegistryEntry } from '../core/tool-registry.ts';
import type { ToolportLogger } from '../core/tool-types.ts';
import { createAgentTool, parseAgentToolConfig, type DelegateToAgent } from '../custom-tools/agent-tool.ts';
import type { AgentRepository } from '../persistence/repositories/agent-repository.ts';
import type {
  CustomToolRecord,
  CustomToolRepository,
} from '../persistence/repositories/custom-tool-repository.ts';
import { audienceAllows, type OperatorPolicy } from '../policy/operator-policy.ts';
import type { UserToolSource } from './tool-catalog.ts';

export const AGENT_TOOL_TYPE = 'agent';

export interface AgentToolServiceOptions {
  tools: CustomToolRepository;
  agents: AgentRepository;
  delegate: DelegateToAgent;
  /** Names no agent tool may take (built-ins and the process's other tools). */
  reservedNames: () => readonly string[];
  policy: () => OperatorPolicy;
  logger?: ToolportLogger;
}

/**
 * AGENT-1: agent tools are rows of the `tools` table with `type: 'agent'` (readers check `type` before `config`).
 * Created, read, changed and deleted here; every enabled row becomes a tool of its owner through `toolSource`.
 */
export class AgentToolService {
  readonly #options: AgentToolServiceOptions;
  readonly toolSource: UserToolSource;

  constructor(options: AgentToolServiceOptions) {
    this.#options = options;
    this.toolSource = async (userId) => this.#entries(userId);
  }

  list(userId: string): Promise<CustomToolRecord[]> {
    return this.#options.tools.list(userId, AGENT_TOOL_TYPE);
  }

  async get(userId: string, id: string): Promise<CustomToolRecord> {
    const tool = await this.#options.tools.get(userId, id);
    if (tool === undefined || tool.type !== AGENT_TOOL_TYPE) throw agentToolNotFound(id);
    return tool;
  }

  async create(
    user: { id: string; isAdmin: boolean },
    input: { name: string; config: Record<string, unknown>; enabled?: boolean },
  ): Promise<CustomToolRecord> {
    this.#assertAllowed(user);
    this.#assertName(input.name);
    const config = await this.#validConfig(user.id, input.config);
    return this.#options.tools.create(user.id, {
      name: input.name,
      type: AGENT_TOOL_TYPE,
      config: { ...config },
      enabled: input.enabled ?? true,
    });
  }

  /** `config` is merged by spread into the stored one and validated like a create. */
  async update(
    user: { id: string; isAdmin: boolean },
    id: string,
    changes: { name?: string; config?: Record<string, unknown>; enabled?: boolean },
  ): Promise<CustomToolRecord> {
    const current = await this.get(user.id, id);
    if (changes.enabled === true) this.#assertAllowed(user);
    if (changes.name !== undefined && changes.name !== current.name) this.#assertName(changes.name);
    const config =
      changes.config === undefined
        ? undefined
        : await this.#validConfig(user.id, { ...current.config, ...changes.config });
    const updated = await this.#options.tools.update(user.id, current.id, {
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
      ...(config === undefined ? {} : { config: { ...config } }),
    });
    if (updated === undefined) throw agentToolNotFound(id);
    return updated;
  }

  async delete(userId: string, id: string): Promise<void> {
    const current = await this.get(userId, id);
    if (!(await this.#options.tools.delete(userId, current.id))) throw agentToolNotFound(id);
  }

  async #entries(userId: string): Promise<RegistryEntry[]> {
    const rows = await this.#options.tools.list(userId, AGENT_TOOL_TYPE);
    const entries: RegistryEntry[] = [];
    for (const row of rows) {
      if (!row.enabled) continue;
      try {
        const tool = createAgentTool(row.name, parseAgentToolConfig(row.config), this.#options.delegate);
        entries.push({ tool, source: { kind: 'agent', origin: `agent-tool:${row.id}` } });
      } catch (error) {
        // A row that no longer validates is left out, never offered broken; the API shows it as stored.
        this.#options.logger?.warn(
          { tool: row.name, error: String(error) },
          'agent tool skipped: invalid config',
        );
      }
    }
    return entries;
  }

  async #validConfig(userId: string, config: Record<string, unknown>) {
    const parsed = parseAgentToolConfig(config);
    if ((await this.#options.agents.get(userId, parsed.targetAgentId)) === undefined) {
      throw new ToolportError(
        'validation_failed',
        `config.targetAgentId names no agent of yours (${JSON.stringify(parsed.targetAgentId)}); GET /api/agents lists them.`,
        { details: { argument: 'config.targetAgentId' } },
      );
    }
    return parsed;
  }

  #assertName(name: string): void {
    assertValidToolName(name, 'agent tool');
    if (this.#options.reservedNames().includes(name)) {
      throw new ToolportError('conflict', `The name ${JSON.stringify(name)} is taken by a built-in tool.`, {
        details: { name },
      });
    }
  }

  #assertAllowed(user: { isAdmin: boolean }): void {
    if (!audienceAllows(this.#options.policy().customTools.agent, user)) {
      throw new ToolportError(
        'permission_denied',
        'The operator policy "customTools.agent" does not allow you to create or enable agent tools.',
        { details: { policy: 'customTools.agent' } },
      );
    }
  }
}

function agentToolNotFound(id: string): ToolportError {
  return new ToolportError('not_found', `No agent tool ${JSON.stringify(id)}.`, { details: { toolId: id } });
}
