import { nodeCrypto } from '../core/lazy-crypto.ts';
import { ToolArgumentError, ToolportError } from '../core/errors.ts';
import { defineTool } from '../core/tool-types.ts';
import { writeFileAtomically } from '../fs/atomic-write.ts';
import { assertReadAndFresh } from '../fs/freshness-guard.ts';
import { getFreshnessLedger, getFreshnessScope } from '../fs/freshness-ledger.ts';
import {
  createPathPolicyForContext,
  PATH_POLICY_DEFAULTS,
  PATH_POLICY_DESCRIPTORS,
} from '../fs/fs-tool-settings.ts';
import { readCappedFile } from '../fs/read-capped-file.ts';
import { TEXT_VIEW_CAP_BYTES } from './read-file.ts';

/** The text the model reads. */
export const EDIT_FILE_DESCRIPTION =
  'Replaces exact text in an existing file: oldString must match the file byte for byte (including indentation and ' +
  'line breaks) and, unless replaceAll is true, exactly once — add surrounding lines to make it unique. You must ' +
  'have read the file with read_file in this chat and it must not have changed since. Copy oldString from the file ' +
  'content, not from the line-number prefixes read_file adds.';

interface EditFileArguments {
  path: string;
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}

export interface EditFileResult {
  path: string;
  replacements: number;
  sha256: string;
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) {
    count += 1;
  }
  return count;
}

export const editFileTool = defineTool<EditFileArguments>({
  // Issue 16: permission patterns match the `path` argument (path globs).
  permissionSubject: 'path',
  definition: {
    name: 'edit_file',
    description: EDIT_FILE_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File to edit: absolute, starting with ~/, or relative to the working directory.',
        },
        oldString: { type: 'string', description: 'The exact text to replace.' },
        newString: { type: 'string', description: 'The text to put in its place.' },
        replaceAll: {
          type: 'boolean',
          description: 'Replace every occurrence instead of requiring exactly one (default false).',
        },
      },
      required: ['path', 'oldString', 'newString'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Edit file',
    description:
      'Lets the model make exact text replacements in files on the server, within the allowed paths.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { ...PATH_POLICY_DEFAULTS },
    parameterDescriptors: [...PATH_POLICY_DESCRIPTORS],
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  execute: async (args, context): Promise<EditFileResult> => {
    if (args.oldString === '') {
      throw new ToolArgumentError(
        'oldString',
        'non-empty text',
        'an empty string',
        '`oldString` is empty. To create a file or replace all of it, use write_file.',
      );
    }
    if (args.oldString === args.newString) {
      throw new ToolArgumentError(
        'newString',
        'text different from oldString',
        'the same text',
        '`newString` is identical to `oldString`, so the edit would change nothing.',
      );
    }
    const policy = await createPathPolicyForContext(context);
    const resolved = await policy.resolve(args.path);
    if (!resolved.exists) {
      throw new ToolportError(
        'not_found',
        `File not found: ${args.path} (resolved to ${resolved.realPath}). To create a file, use write_file.`,
        { details: { argument: 'path', path: resolved.realPath } },
      );
    }
    const file = await readCappedFile(resolved.realPath, {
      capBytes: TEXT_VIEW_CAP_BYTES,
      capDescription: 'the 10 MiB cap of edit_file',
      binaryRefusal: `${args.path} looks binary (a NUL byte in its first 8 KiB); edit_file edits text files only.`,
      policy,
      displayPath: args.path,
      signal: context.signal,
    });
    const ledger = getFreshnessLedger(context);
    const scope = getFreshnessScope(context);
    await assertReadAndFresh(ledger, scope, file.realPath, file.sha256, args.path, 'edit_file');
    let text: string;
    try {
      // fatal: re-encoding replacement characters would silently corrupt a file that is not valid UTF-8.
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(file.bytes);
    } catch {
      throw new ToolportError(
        'validation_failed',
        `${args.path} is not valid UTF-8; edit_file would corrupt it. Use write_file with the full new content.`,
        { details: { argument: 'path' } },
      );
    }
    const occurrences = countOccurrences(text, args.oldString);
    if (occurrences === 0) {
      throw new ToolArgumentError(
        'oldString',
        'text that occurs in the file',
        'text that does not occur',
        `\`oldString\` was not found in ${args.path}. It must match exactly, including whitespace and line breaks; ` +
          'read the file again and copy the text without the line-number prefixes.',
      );
    }
    if (occurrences > 1 && args.replaceAll !== true) {
      throw new ToolArgumentError(
        'oldString',
        'text that occurs exactly once',
        `text that occurs ${occurrences} times`,
        `\`oldString\` occurs ${occurrences} times in ${args.path}. Include more surrounding lines so it matches ` +
          'exactly once, or set replaceAll: true to replace every occurrence.',
      );
    }
    // split/join, not String.replace: `$&` and friends in newString must stay literal.
    const updated = text.split(args.oldString).join(args.newString);
    const bytes = Buffer.from(updated, 'utf8');
    await writeFileAtomically(file.realPath, bytes, {
      policy,
      displayPath: args.path,
      expectedSha256: file.sha256,
      mode: file.mode & 0o7777,
    });
    const sha256 = nodeCrypto().createHash('sha256').update(bytes).digest('hex');
    await ledger.recordHash(scope, file.realPath, sha256);
    return { path: file.realPath, replacements: occurrences, sha256 };
  },
});
