import { constants, type Dirent } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolArgumentError, ToolportError } from '../core/errors.ts';
import { defineTool } from '../core/tool-types.ts';
import {
  createPathPolicyForContext,
  PATH_POLICY_DEFAULTS,
  PATH_POLICY_DESCRIPTORS,
  pathOrWorkingDirectory,
} from '../fs/fs-tool-settings.ts';
import { describeFileType } from '../fs/read-capped-file.ts';
import { verifyOpenedPath } from '../fs/resolve-and-validate-path.ts';

/** The text the model reads. */
export const LIST_DIRECTORY_DESCRIPTION =
  'Lists the entries of one directory (not recursive) with their type: file, directory, symlink or other. path is ' +
  'absolute, starts with ~/, or is relative to the working directory; omit it only when the system prompt names a ' +
  'working directory, which is then listed. Use glob to find files by pattern across subdirectories.';

/** A directory with more entries is listed up to this many, sorted by name, with `truncated`. */
export const MAX_DIRECTORY_ENTRIES = 5000;

type EntryType = 'file' | 'directory' | 'symlink' | 'other';

interface ListDirectoryArguments {
  path?: string;
}

export interface ListDirectoryResult {
  path: string;
  entries: { name: string; type: EntryType }[];
  truncated: boolean;
  totalEntries: number;
}

export const listDirectoryTool = defineTool<ListDirectoryArguments>({
  // Issue 16: permission patterns match the `path` argument (path globs).
  permissionSubject: 'path',
  definition: {
    name: 'list_directory',
    description: LIST_DIRECTORY_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description:
            'Directory to list: absolute, starting with ~/, or relative to the working directory. Required when ' +
            'the chat has no working directory.',
        },
      },
      required: [],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'List directory',
    description: 'Lets the model list directories on the server, within the allowed paths.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { ...PATH_POLICY_DEFAULTS },
    parameterDescriptors: [...PATH_POLICY_DESCRIPTORS],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: async (args, context): Promise<ListDirectoryResult> => {
    const policy = await createPathPolicyForContext(context);
    const input = pathOrWorkingDirectory(args.path, policy, 'list_directory');
    const resolved = await policy.resolve(input);
    if (!resolved.exists) {
      throw new ToolportError(
        'not_found',
        `Directory not found: ${input} (resolved to ${resolved.realPath}).`,
        {
          details: { argument: 'path', path: resolved.realPath },
        },
      );
    }
    const stats = await stat(resolved.realPath);
    if (!stats.isDirectory()) {
      throw new ToolArgumentError(
        'path',
        'a directory',
        describeFileType(stats),
        `${input} is not a directory. Use read_file to read a file.`,
      );
    }
    // Open, verify the descriptor, then list through it (/proc/self/fd/N on Linux): the directory listed is the one
    // checked, even if a component is swapped for a symlink in between.
    const handle = await open(
      resolved.realPath,
      constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
    );
    let dirents: Dirent[];
    try {
      await verifyOpenedPath(handle, resolved.realPath, policy);
      const listed = process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : resolved.realPath;
      dirents = await readdir(listed, { withFileTypes: true });
    } finally {
      await handle.close();
    }
    const entries = dirents
      // A denied subtree is not shown at all: its name can be a secret too.
      .filter((dirent) => policy.isAllowed(join(resolved.realPath, dirent.name)))
      .map((dirent) => ({
        name: dirent.name,
        type: (dirent.isFile()
          ? 'file'
          : dirent.isDirectory()
            ? 'directory'
            : dirent.isSymbolicLink()
              ? 'symlink'
              : 'other') as EntryType,
      }))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    return {
      path: resolved.realPath,
      entries: entries.slice(0, MAX_DIRECTORY_ENTRIES),
      truncated: entries.length > MAX_DIRECTORY_ENTRIES,
      totalEntries: entries.length,
    };
  },
});
