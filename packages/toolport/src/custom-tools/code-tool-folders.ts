import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * SPEC CODE-1 discovery: where code tools are looked for, highest precedence first. Folders of one `rank` form one
 * group: a name defined twice inside a group is a load error naming both files; across groups the lower rank wins
 * and the other is listed as shadowed. Built-ins come after every group.
 */
export interface CodeToolFolder {
  /** Absolute path; it may not exist (then it contributes nothing). */
  path: string;
  /** Lower is stronger. */
  rank: number;
  /** Shown in listings: `project .toolport/tools`, `global opencode`, … */
  label: string;
  /** The project this folder belongs to: `context.directory` when a call has no working directory. */
  workspace?: string;
}

export interface CodeToolFolderOptions {
  /** The project: a chat's working directory (agent mode), `--workdir`, else the current directory. */
  projectDirectory: string;
  /** Include `$XDG_CONFIG_HOME/{toolport,opencode}/…` (the CLI and `toolport mcp`; never `toolport serve`). */
  includeUserFolders: boolean;
  env: NodeJS.ProcessEnv;
}

const PROJECT_TOOLPORT_RANK = 0;
const PROJECT_OPENCODE_RANK = 1;
const GLOBAL_TOOLPORT_RANK = 2;
const GLOBAL_OPENCODE_RANK = 3;

/** `$XDG_CONFIG_HOME`, else `~/.config` (a relative XDG value is ignored, as the XDG spec says). */
export function userConfigDirectory(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return xdg;
  return join(env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir(), '.config');
}

/** One project's folders: `.toolport/tools`, then `.opencode/tool` and `.opencode/tools` (one group). */
export function projectCodeToolFolders(projectDirectory: string, rankOffset = 0): CodeToolFolder[] {
  const project = resolve(projectDirectory);
  return [
    {
      path: join(project, '.toolport', 'tools'),
      rank: rankOffset + PROJECT_TOOLPORT_RANK,
      label: 'project .toolport/tools',
      workspace: project,
    },
    {
      path: join(project, '.opencode', 'tool'),
      rank: rankOffset + PROJECT_OPENCODE_RANK,
      label: 'project .opencode/tool',
      workspace: project,
    },
    {
      path: join(project, '.opencode', 'tools'),
      rank: rankOffset + PROJECT_OPENCODE_RANK,
      label: 'project .opencode/tools',
      workspace: project,
    },
  ];
}

/** The CLI's and `toolport mcp`'s folders, in precedence order. */
export function cliCodeToolFolders(options: CodeToolFolderOptions): CodeToolFolder[] {
  const folders = projectCodeToolFolders(options.projectDirectory);
  if (!options.includeUserFolders) return folders;
  const config = userConfigDirectory(options.env);
  folders.push(
    { path: join(config, 'toolport', 'tools'), rank: GLOBAL_TOOLPORT_RANK, label: 'global toolport' },
    { path: join(config, 'opencode', 'tool'), rank: GLOBAL_OPENCODE_RANK, label: 'global opencode/tool' },
    { path: join(config, 'opencode', 'tools'), rank: GLOBAL_OPENCODE_RANK, label: 'global opencode/tools' },
  );
  return folders;
}

/**
 * `toolport serve`'s folders: only the operator's roots (in the order listed, earlier roots first), never a chat's
 * bound directory nor the server account's own config folders.
 */
export function operatorCodeToolFolders(roots: readonly string[]): CodeToolFolder[] {
  return roots.flatMap((root, index) =>
    projectCodeToolFolders(root, index * 2).map((folder) => ({
      ...folder,
      label: `${folder.label} (${root})`,
    })),
  );
}

/** `TOOLPORT_CODE_TOOL_ROOTS` / `--code-tool-roots`: `:`-separated absolute directories; empty entries skipped. */
export function parseCodeToolRoots(value: string | undefined, cwd: string): string[] {
  if (value === undefined) return [];
  return value
    .split(':')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => resolve(cwd, entry));
}
