import { ToolportError } from '../core/errors.ts';
import { getDefaultToolSettings, TIMEOUT_SECONDS_DESCRIPTOR } from '../core/settings-policy.ts';
import { validateToolArguments } from '../core/tool-arguments.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type { JsonSchema, RegisteredTool, ToolArguments } from '../core/tool-types.ts';
import { DEFAULT_SCRIPT_MEMORY_LIMIT_MB } from './isolate-script-runner.ts';
import {
  createWorkspaceScriptTool,
  MEMORY_LIMIT_DESCRIPTOR,
  type WorkspaceScriptToolOptions,
} from './workspace-script-tool.ts';
import type { WorkspaceToolSet } from './workspace-tool-set.ts';

/** The MCP workspace surface (seed "Superfície MCP"). A workspace tool may not take these names. */
export const WORKSPACE_META_TOOL_NAMES = [
  'GetWorkspaceTools',
  'ExecuteWorkspaceTool',
  'ReloadWorkspaceTools',
] as const;

export type WorkspaceToolsOptions = Omit<WorkspaceScriptToolOptions, 'directory'>;

/** Each script tool of the set's current tools as a registry entry (source kind `workspace`). */
export function createWorkspaceToolEntries(
  set: WorkspaceToolSet,
  options: WorkspaceToolsOptions,
): RegistryEntry[] {
  return set.specs.map((spec) => ({
    tool: createWorkspaceScriptTool(spec, { ...options, directory: set.directory }),
    source: { kind: 'workspace', origin: `workspace:${set.path}` },
  }));
}

const noArguments = (): JsonSchema => ({ type: 'object', properties: {}, additionalProperties: false });
const executeArguments = (): JsonSchema => ({
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The workspace tool to run.' },
    args: { type: 'object', description: 'Arguments for the tool, matching its parameters schema.' },
  },
  required: ['name'],
  additionalProperties: false,
});

/** The meta-tools' argument schemas (fixed text: listed for the build-time validators). */
export function workspaceMetaToolParameters(): JsonSchema[] {
  return [noArguments(), executeArguments()];
}

function metaTool(
  name: string,
  title: string,
  description: string,
  parameters: Record<string, unknown>,
  execute: RegisteredTool['execute'],
  extra: Partial<RegisteredTool> = {},
): RegisteredTool {
  return {
    definition: { name, description, parameters },
    settings: {
      title,
      description,
      category: 'custom',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
    },
    execute,
    ...extra,
  };
}

/**
 * GetWorkspaceTools, ExecuteWorkspaceTool and ReloadWorkspaceTools: the three tools that give a client that ignores
 * `list_changed` the workspace's tools anyway. Header values and templates are never listed.
 */
export function createWorkspaceMetaTools(
  set: WorkspaceToolSet,
  options: WorkspaceToolsOptions,
): RegisteredTool[] {
  const listing = () => ({
    workspace: set.directory,
    tools: set.specs.map((spec) => ({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      timeout: spec.timeoutSeconds,
    })),
    ...(set.errors.length === 0 ? {} : { errors: set.errors }),
  });
  return [
    metaTool(
      'GetWorkspaceTools',
      'Get workspace tools',
      "Lists the workspace's custom tools (tools.json) with their parameter schemas.",
      noArguments(),
      async () => {
        await set.ensureLoaded();
        return listing();
      },
      { annotations: { readOnlyHint: true } },
    ),
    metaTool(
      'ExecuteWorkspaceTool',
      'Execute a workspace tool',
      'Runs one of the workspace tools (see GetWorkspaceTools) with arguments matching its parameter schema.',
      executeArguments(),
      async (input, context) => {
        await set.ensureLoaded();
        const { name, args } = input as { name: string; args?: ToolArguments };
        const spec = set.specs.find((candidate) => candidate.name === name);
        if (spec === undefined) {
          const names = set.specs.map((candidate) => candidate.name);
          // validation_failed, not not_found: MCP answers an unknown *tool* with a protocol error, and this is an
          // isError result the model can read (the `name` argument is wrong).
          throw new ToolportError(
            'validation_failed',
            `No workspace tool named ${JSON.stringify(name)}. The workspace's tools: ` +
              `${names.length === 0 ? '(none)' : names.join(', ')}.`,
            { details: { argument: 'name', tools: names } },
          );
        }
        const tool = createWorkspaceScriptTool(spec, { ...options, directory: set.directory });
        const validated = validateToolArguments(spec.parameters, args ?? {});
        const defaults = getDefaultToolSettings(tool);
        return tool.execute(validated, {
          ...context,
          settings: {
            enabled: true,
            parameters: {
              ...defaults.parameters,
              memoryLimitMb: context.settings.parameters.memoryLimitMb ?? DEFAULT_SCRIPT_MEMORY_LIMIT_MB,
            },
          },
        });
      },
      {
        annotations: { openWorldHint: true },
        settings: {
          title: 'Execute a workspace tool',
          description: 'Runs one of the workspace tools with arguments matching its parameter schema.',
          category: 'custom',
          enabledByDefault: true,
          canDisable: true,
          defaultParameters: { memoryLimitMb: DEFAULT_SCRIPT_MEMORY_LIMIT_MB, timeoutSeconds: 600 },
          parameterDescriptors: [MEMORY_LIMIT_DESCRIPTOR, { ...TIMEOUT_SECONDS_DESCRIPTOR, default: 600 }],
        },
      },
    ),
    metaTool(
      'ReloadWorkspaceTools',
      'Reload workspace tools',
      'Re-reads tools.json after changes. An invalid file is rejected whole and the last good set stays.',
      noArguments(),
      async () => {
        const report = await set.reload();
        if (!report.accepted) {
          throw new ToolportError('validation_failed', report.message, {
            details: { errors: report.errors },
          });
        }
        return { ...listing(), message: report.message };
      },
    ),
  ];
}
