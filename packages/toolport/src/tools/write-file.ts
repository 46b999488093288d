import { nodeCrypto } from '../core/lazy-crypto.ts';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ToolArgumentError } from '../core/errors.ts';
import { defineTool } from '../core/tool-types.ts';
import { createParentDirectories, writeFileAtomically } from '../fs/atomic-write.ts';
import { assertReadAndFresh } from '../fs/freshness-guard.ts';
import { getFreshnessLedger, getFreshnessScope } from '../fs/freshness-ledger.ts';
import {
  createPathPolicyForContext,
  PATH_POLICY_DEFAULTS,
  PATH_POLICY_DESCRIPTORS,
} from '../fs/fs-tool-settings.ts';
import { sha256OfHandle } from '../fs/hash-file.ts';
import { describeFileType } from '../fs/read-capped-file.ts';
import { verifyOpenedPath } from '../fs/resolve-and-validate-path.ts';

/** The text the model reads. */
export const WRITE_FILE_DESCRIPTION =
  'Writes text to a file, replacing its whole content, and creates missing parent directories. path is absolute, ' +
  'starts with ~/, or is relative to the working directory. To overwrite an existing file you must have read it ' +
  'with read_file in this chat, and it must not have changed since; otherwise the write is refused and you should ' +
  'read it again. Creating a new file needs no read. For a small change to an existing file prefer edit_file.';

interface WriteFileArguments {
  path: string;
  content: string;
}

export interface WriteFileResult {
  path: string;
  /** True when the file did not exist before. */
  created: boolean;
  bytesWritten: number;
  sha256: string;
}

export const writeFileTool = defineTool<WriteFileArguments>({
  // Issue 16: permission patterns match the `path` argument (path globs).
  permissionSubject: 'path',
  definition: {
    name: 'write_file',
    description: WRITE_FILE_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File to write: absolute, starting with ~/, or relative to the working directory.',
        },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Write file',
    description: 'Lets the model create and overwrite files on the server, within the allowed paths.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { ...PATH_POLICY_DEFAULTS },
    parameterDescriptors: [...PATH_POLICY_DESCRIPTORS],
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  execute: async (args, context): Promise<WriteFileResult> => {
    const policy = await createPathPolicyForContext(context);
    const resolved = await policy.resolve(args.path);
    const ledger = getFreshnessLedger(context);
    const scope = getFreshnessScope(context);
    const bytes = Buffer.from(args.content, 'utf8');
    let expectedSha256: string | undefined;
    let mode: number | undefined;
    if (resolved.exists) {
      const stats = await stat(resolved.realPath);
      if (!stats.isFile()) {
        throw new ToolArgumentError(
          'path',
          'a regular file',
          describeFileType(stats),
          `${args.path} is ${describeFileType(stats)}; write_file only writes regular files.`,
        );
      }
      const handle = await open(
        resolved.realPath,
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
      let current: string;
      try {
        await verifyOpenedPath(handle, resolved.realPath, policy);
        current = await sha256OfHandle(handle);
      } finally {
        await handle.close();
      }
      expectedSha256 = await assertReadAndFresh(
        ledger,
        scope,
        resolved.realPath,
        current,
        args.path,
        'write_file',
      );
      mode = stats.mode & 0o7777;
    } else {
      await createParentDirectories(resolved.realPath, policy, args.path);
    }
    await writeFileAtomically(resolved.realPath, bytes, {
      policy,
      displayPath: args.path,
      ...(expectedSha256 === undefined ? {} : { expectedSha256 }),
      ...(mode === undefined ? {} : { mode }),
    });
    const sha256 = nodeCrypto().createHash('sha256').update(bytes).digest('hex');
    await ledger.recordHash(scope, resolved.realPath, sha256);
    return { path: resolved.realPath, created: !resolved.exists, bytesWritten: bytes.length, sha256 };
  },
});
