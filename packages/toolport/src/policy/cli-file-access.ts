import { resolve } from 'node:path';
import type { ToolServices } from '../core/tool-types.ts';
import { MANDATORY_DENIED_PATHS } from './mandatory-denied-paths.ts';

/** `--allow-path P` (repeatable) and `--no-confine` on `tools run`, `mcp` and `chat` (parseArgs options). */
export const CONFINEMENT_OPTIONS = {
  'allow-path': { type: 'string', multiple: true },
  'no-confine': { type: 'boolean' },
} as const;

export interface CliConfinementInput {
  /** `--workdir`, already a real path. */
  workingDirectory: string | undefined;
  allowPaths: readonly string[] | undefined;
  noConfine: boolean | undefined;
  cwd: string;
  /** Denied like `/proc`: the toolport data directory (secret key, admin token, database). */
  dataDirectory: string;
}

/**
 * AUTH-2 on the CLI, which runs as the local user: with `--workdir DIR` (or `--allow-path`), file tools are confined
 * to DIR plus each `--allow-path`, unless the tool's own `allowedPaths` setting is not empty (the user chose) or
 * `--no-confine` is given; a confined call refuses hard-linked files too. `/proc`, `/sys`, `/dev` and the data
 * directory are denied always.
 */
export function cliFileServices(
  input: CliConfinementInput,
): Pick<ToolServices, 'fileAccess' | 'protectedPaths'> {
  const protectedPaths = [...MANDATORY_DENIED_PATHS, resolve(input.dataDirectory)];
  const roots = [
    ...(input.workingDirectory === undefined ? [] : [input.workingDirectory]),
    ...(input.allowPaths ?? []).map((path) => resolve(input.cwd, path)),
  ];
  if (input.noConfine === true || roots.length === 0) return { protectedPaths };
  return {
    protectedPaths,
    fileAccess: {
      confinedTo: roots,
      confinementSource:
        '--workdir and --allow-path; pass --allow-path P to add a directory, or --no-confine',
      confinementYieldsToAllowedPaths: true,
      allowHardLinks: false,
    },
  };
}
