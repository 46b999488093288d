import { ToolportError } from '../core/errors.ts';
import { clampIntegerSetting } from '../core/settings-policy.ts';
import {
  defineTool,
  type JsonSchema,
  type RegisteredTool,
  type ToolContext,
  type ToolParameterDescriptor,
} from '../core/tool-types.ts';

/**
 * AGENT-1 (seed 003): a `type: 'agent'` row of the `tools` table. Calling it runs the target agent's own loop on the
 * argument `task` and returns its final answer.
 */
export interface AgentToolConfig {
  targetAgentId: string;
  /** What the calling model reads about the specialist. */
  description: string;
  /** Tokens (input + output, from the sub-turn's usage) the delegation may spend; past it the sub-turn ends. */
  maxDelegationTokens?: number;
}

export const MAX_DELEGATION_TOKENS_LIMIT = 100_000_000;
export const DEFAULT_MAX_DELEGATION_DEPTH = 3;
const MAX_DESCRIPTION_CHARACTERS = 4_096;

export interface DelegationRequest {
  targetAgentId: string;
  task: string;
  context?: string;
  maxDelegationTokens?: number;
  maxDelegationDepth: number;
}

export interface DelegationResult {
  answer: string;
  agentId: string;
  iterations: number;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  /** Set when the target agent's `maxIterations` ended the sub-turn before it answered. */
  stopReason?: 'max_iterations';
}

/** Runs a delegation (services/agent-delegation-service.ts); the tool only validates and hands over. */
export type DelegateToAgent = (request: DelegationRequest, context: ToolContext) => Promise<DelegationResult>;

const AGENT_TOOL_DESCRIPTORS: readonly ToolParameterDescriptor[] = [
  {
    name: 'timeoutSeconds',
    title: 'Timeout',
    type: 'integer',
    description:
      "The whole delegation (every model call and tool call of the specialist's turn) must finish in this time.",
    default: 300,
    minimum: 5,
    maximum: 600,
    unit: 'seconds',
  },
  {
    name: 'maxDelegationDepth',
    title: 'Delegation depth',
    type: 'integer',
    description: 'How many delegations a chain may hold (an agent delegating to one that delegates again …).',
    default: DEFAULT_MAX_DELEGATION_DEPTH,
    minimum: 1,
    maximum: 10,
  },
];

/** Checks a stored or submitted config; a bad value is a 422 naming `config.<key>`. */
export function parseAgentToolConfig(config: Record<string, unknown>): AgentToolConfig {
  const invalid = (key: string, reason: string): ToolportError =>
    new ToolportError('validation_failed', `config.${key} ${reason}.`, {
      details: { argument: `config.${key}` },
    });
  for (const key of Object.keys(config)) {
    if (!['targetAgentId', 'description', 'maxDelegationTokens'].includes(key))
      throw invalid(key, 'is not an agent tool setting; use targetAgentId, description, maxDelegationTokens');
  }
  const { targetAgentId, description, maxDelegationTokens } = config;
  if (typeof targetAgentId !== 'string' || targetAgentId === '')
    throw invalid('targetAgentId', 'must be the id of one of your agents');
  if (
    typeof description !== 'string' ||
    description.trim() === '' ||
    description.length > MAX_DESCRIPTION_CHARACTERS
  )
    throw invalid(
      'description',
      `must be text of 1-${MAX_DESCRIPTION_CHARACTERS} characters (what the model reads)`,
    );
  if (
    maxDelegationTokens !== undefined &&
    (!Number.isInteger(maxDelegationTokens) ||
      (maxDelegationTokens as number) < 1 ||
      (maxDelegationTokens as number) > MAX_DELEGATION_TOKENS_LIMIT)
  )
    throw invalid('maxDelegationTokens', `must be an integer from 1 to ${MAX_DELEGATION_TOKENS_LIMIT}`);
  return {
    targetAgentId,
    description,
    ...(maxDelegationTokens === undefined ? {} : { maxDelegationTokens: maxDelegationTokens as number }),
  };
}

/** Every agent tool's argument schema (the row sets only name and description; listed for build-time validators). */
export function agentToolParameters(): JsonSchema {
  return {
    type: 'object',
    properties: {
      task: { type: 'string', description: 'What the specialist should do, stated completely.' },
      context: {
        type: 'string',
        description: 'Facts from this conversation the specialist needs (it does not see the conversation).',
      },
    },
    required: ['task'],
    additionalProperties: false,
  };
}

interface AgentToolArguments {
  task: string;
  context?: string;
}

/**
 * The runnable tool of one agent-tool row. `withConfigOverlay` gives an agent its own version (PATCH
 * /api/agents/:id/tools/:toolName merges into the agent's overlay, e.g. a lower `maxDelegationTokens`).
 */
export function createAgentTool(
  name: string,
  config: AgentToolConfig,
  delegate: DelegateToAgent,
): RegisteredTool {
  const tool = defineTool<AgentToolArguments>({
    definition: {
      name,
      description: config.description,
      parameters: agentToolParameters(),
    },
    settings: {
      title: name,
      description: `Delegates to another agent: ${config.description}`,
      category: 'interaction',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { timeoutSeconds: 300, maxDelegationDepth: DEFAULT_MAX_DELEGATION_DEPTH },
      parameterDescriptors: AGENT_TOOL_DESCRIPTORS,
    },
    annotations: { readOnlyHint: false, openWorldHint: true },
    execute: async (args, context) =>
      delegate(
        {
          targetAgentId: config.targetAgentId,
          task: args.task,
          ...(args.context === undefined ? {} : { context: args.context }),
          ...(config.maxDelegationTokens === undefined
            ? {}
            : { maxDelegationTokens: config.maxDelegationTokens }),
          maxDelegationDepth: clampIntegerSetting(context.settings.parameters.maxDelegationDepth, {
            minimum: 1,
            maximum: 10,
            fallback: DEFAULT_MAX_DELEGATION_DEPTH,
          }),
        },
        context,
      ),
  });
  return {
    ...tool,
    withConfigOverlay: (overlay) =>
      createAgentTool(name, parseAgentToolConfig({ ...config, ...overlay }), delegate),
  };
}
