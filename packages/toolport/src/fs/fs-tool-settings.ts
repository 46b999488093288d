import { ToolArgumentError, ToolportError } from '../core/errors.ts';
import type { ToolContext, ToolParameterDescriptor } from '../core/tool-types.ts';
import { createPathPolicy, type PathPolicy } from './resolve-and-validate-path.ts';

/** Settings every filesystem tool shares, so the UI shows the same path policy form for each. */
export const ALLOWED_PATHS_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'allowedPaths',
  title: 'Allowed paths',
  type: 'path[]',
  description:
    'When not empty, only paths inside one of these directories are reachable (decided on real paths, symlinks resolved).',
  default: [],
};

export const DENIED_PATHS_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'deniedPaths',
  title: 'Denied paths',
  type: 'path[]',
  description: 'Paths inside one of these are never reachable, even when also inside an allowed path.',
  default: [],
};

export const RESTRICT_TO_WORKING_DIRECTORY_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'restrictToWorkingDirectory',
  title: 'Restrict to the working directory',
  type: 'boolean',
  description: "In agent mode, also confine paths to the chat's working directory (plus any allowed paths).",
  default: false,
};

/** grep and glob: off by default, as the seed's walk reads no ignore files; on, they skip what git ignores. */
export const RESPECT_GITIGNORE_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'respectGitignore',
  title: 'Respect .gitignore',
  type: 'boolean',
  description:
    "Skip files and directories the repository's .gitignore files ignore (and .git), like ripgrep and fd do.",
  default: false,
};

export const PATH_POLICY_DESCRIPTORS: readonly ToolParameterDescriptor[] = [
  ALLOWED_PATHS_DESCRIPTOR,
  DENIED_PATHS_DESCRIPTOR,
  RESTRICT_TO_WORKING_DIRECTORY_DESCRIPTOR,
];

export const PATH_POLICY_DEFAULTS = {
  allowedPaths: [],
  deniedPaths: [],
  restrictToWorkingDirectory: false,
} as const;

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** The path policy of one call, from its settings and its chat's mode and working directory (PATH-1). */
export function createPathPolicyForContext(
  context: Pick<ToolContext, 'settings' | 'mode' | 'workingDirectory'> & {
    services?: ToolContext['services'];
  },
): Promise<PathPolicy> {
  const parameters = context.settings.parameters;
  const access = context.services?.fileAccess;
  if (access?.refusal !== undefined) {
    return Promise.reject(
      new ToolportError('permission_denied', access.refusal.message, {
        details: access.refusal.policyKey === undefined ? {} : { policyKey: access.refusal.policyKey },
      }),
    );
  }
  const allowedPaths = stringList(parameters.allowedPaths);
  const confine =
    access?.confinedTo !== undefined &&
    !(access.confinementYieldsToAllowedPaths === true && allowedPaths.length > 0);
  return createPathPolicy({
    mode: context.mode,
    workingDirectory: context.workingDirectory,
    allowedPaths,
    // The operator's protected paths (the data directory) are denied whatever the user's settings say.
    deniedPaths: [...stringList(parameters.deniedPaths), ...(context.services?.protectedPaths ?? [])],
    restrictToWorkingDirectory: parameters.restrictToWorkingDirectory === true,
    ...(confine ? { confinedTo: access.confinedTo } : {}),
    ...(access?.confinementSource === undefined ? {} : { confinementSource: access.confinementSource }),
    refuseHardLinks: access?.allowHardLinks === false,
  });
}

/**
 * PATH-1: list_directory and grep take their path from the working directory only in agent mode; in chat mode (or
 * with no working directory bound) the model must name one.
 */
export function pathOrWorkingDirectory(
  path: string | undefined,
  policy: PathPolicy,
  toolName: string,
  argument = 'path',
): string {
  if (path !== undefined) return path;
  if (policy.anchorDirectory !== undefined) return policy.anchorDirectory;
  throw new ToolArgumentError(
    argument,
    'a path',
    'nothing',
    `\`${argument}\` is required: this chat has no working directory, so ${toolName} cannot default to one. ` +
      'Pass an absolute path or a path starting with ~/.',
  );
}
