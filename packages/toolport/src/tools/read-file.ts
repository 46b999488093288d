import { ToolArgumentError, ToolportError } from '../core/errors.ts';
import { defineTool } from '../core/tool-types.ts';
import { getFreshnessLedger, getFreshnessScope } from '../fs/freshness-ledger.ts';
import {
  createPathPolicyForContext,
  PATH_POLICY_DEFAULTS,
  PATH_POLICY_DESCRIPTORS,
} from '../fs/fs-tool-settings.ts';
import { readCappedFile } from '../fs/read-capped-file.ts';

/** The text the model reads. */
export const READ_FILE_DESCRIPTION =
  'Reads a file from disk. The default view "text" returns numbered lines (cat -n style) of a window: startLine ' +
  '(1-based, default 1) and maxLines (default 2000, at most 5000); text files up to 10 MiB. Binary files (a NUL byte ' +
  'in the first 8 KiB) are refused in the text view: read them with view "hex" or "base64", which return the whole ' +
  'file (up to 256 KiB, no window, so startLine/maxLines are not accepted there). path is absolute, starts with ~/, ' +
  'or is relative to the working directory. Reading a file is required before write_file or edit_file may change it.';

export const TEXT_VIEW_CAP_BYTES = 10 * 1024 * 1024;
export const BYTE_VIEW_CAP_BYTES = 256 * 1024;
export const DEFAULT_MAX_LINES = 2000;
export const MAX_MAX_LINES = 5000;
/** Longer lines are cut so one minified line cannot fill the window. */
export const MAX_LINE_CHARACTERS = 2000;
/** Keeps a window under the 100,000-character result cap of CORE-7, with room for the JSON around it. */
export const MAX_WINDOW_CHARACTERS = 90_000;

export type ReadFileView = 'text' | 'hex' | 'base64';

interface ReadFileArguments {
  path: string;
  startLine?: number;
  maxLines?: number;
  view?: ReadFileView;
}

export interface ReadFileResult {
  content: string;
  path: string;
  size: number;
  sha256: string;
  totalLines: number;
  startLine: number;
  endLine: number;
  truncated: boolean;
  view?: 'hex' | 'base64';
  /** Present when `truncated`: how to read the rest. */
  notice?: string;
}

/** Lines of `text` (a final newline does not start another line), counted without splitting the whole file. */
function countLines(text: string): number {
  if (text === '') return 0;
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
  return text.endsWith('\n') ? count : count + 1;
}

/** Offset where line `lineNumber` (1-based) starts; `text.length` past the end. */
function lineStartOffset(text: string, lineNumber: number): number {
  let offset = 0;
  for (let line = 1; line < lineNumber; line += 1) {
    const newline = text.indexOf('\n', offset);
    if (newline === -1) return text.length;
    offset = newline + 1;
  }
  return offset;
}

/** cat -n: right-aligned line number, a tab, the line. */
function numberLine(lineNumber: number, line: string): string {
  return `${String(lineNumber).padStart(6, ' ')}\t${line}`;
}

export function formatTextWindow(
  text: string,
  startLine: number,
  maxLines: number,
): Pick<ReadFileResult, 'content' | 'totalLines' | 'startLine' | 'endLine' | 'truncated' | 'notice'> {
  // A 10 MiB file is never split whole: lines are counted, and only the window is sliced out.
  const totalLines = countLines(text);
  if (totalLines === 0) {
    if (startLine > 1) throw startLineError(startLine, 0);
    return { content: '', totalLines: 0, startLine: 1, endLine: 0, truncated: false };
  }
  if (startLine > totalLines) throw startLineError(startLine, totalLines);
  const output: string[] = [];
  let characters = 0;
  let cutLines = 0;
  let endLine = startLine - 1;
  const lastWanted = Math.min(totalLines, startLine + maxLines - 1);
  let offset = lineStartOffset(text, startLine);
  for (let lineNumber = startLine; lineNumber <= lastWanted; lineNumber += 1) {
    const newline = text.indexOf('\n', offset);
    const end = newline === -1 ? text.length : newline;
    let line = text.slice(offset, end);
    offset = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.length > MAX_LINE_CHARACTERS) {
      line = `${line.slice(0, MAX_LINE_CHARACTERS)}… [line cut at ${MAX_LINE_CHARACTERS} of ${line.length} characters]`;
      cutLines += 1;
    }
    const numbered = numberLine(lineNumber, line);
    if (output.length > 0 && characters + numbered.length + 1 > MAX_WINDOW_CHARACTERS) break;
    output.push(numbered);
    characters += numbered.length + 1;
    endLine = lineNumber;
  }
  const truncated = endLine < totalLines || cutLines > 0;
  const notices: string[] = [];
  if (endLine < totalLines) {
    notices.push(
      `Showing lines ${startLine}-${endLine} of ${totalLines}. Call read_file again with startLine: ${endLine + 1} ` +
        '(and maxLines) to read further.',
    );
  }
  if (cutLines > 0) {
    notices.push(
      `${cutLines} line(s) longer than ${MAX_LINE_CHARACTERS} characters were cut; use grep to find specific ` +
        'content, or view "hex"/"base64" for the raw bytes of a small file.',
    );
  }
  return {
    content: output.join('\n'),
    totalLines,
    startLine,
    endLine,
    truncated,
    ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
  };
}

function startLineError(startLine: number, totalLines: number): ToolArgumentError {
  return new ToolArgumentError(
    'startLine',
    totalLines === 0 ? '1 (the file is empty)' : `a line number from 1 to ${totalLines}`,
    String(startLine),
    `\`startLine\` ${startLine} is past the end of the file, which has ${totalLines} line(s).`,
  );
}

export const readFileTool = defineTool<ReadFileArguments>({
  // Issue 16: permission patterns match the `path` argument (path globs).
  permissionSubject: 'path',
  definition: {
    name: 'read_file',
    description: READ_FILE_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File to read: absolute, starting with ~/, or relative to the working directory.',
        },
        startLine: {
          type: 'integer',
          minimum: 1,
          description: 'First line to return, 1-based (default 1). Text view only.',
        },
        maxLines: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_MAX_LINES,
          description: `How many lines to return (default ${DEFAULT_MAX_LINES}, at most ${MAX_MAX_LINES}). Text view only.`,
        },
        view: {
          type: 'string',
          enum: ['text', 'hex', 'base64'],
          description:
            'text (default): numbered lines. hex / base64: the whole file as bytes, up to 256 KiB.',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Read file',
    description: 'Lets the model read files on the server, within the allowed paths.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { ...PATH_POLICY_DEFAULTS },
    parameterDescriptors: [...PATH_POLICY_DESCRIPTORS],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  // A byte view delivers the whole file (FS-1): 256 KiB is 512 KiB of hex, over CORE-7's default cap.
  maxResultCharacters: 2 * BYTE_VIEW_CAP_BYTES + 10_000,
  execute: async (args, context): Promise<ReadFileResult> => {
    const view = args.view ?? 'text';
    if (view !== 'text') {
      for (const argument of ['startLine', 'maxLines'] as const) {
        if (args[argument] !== undefined) {
          throw new ToolArgumentError(
            argument,
            'no value with a byte view',
            String(args[argument]),
            `\`${argument}\` applies only to view "text"; view "${view}" always returns the whole file ` +
              `(up to 256 KiB). Remove \`${argument}\`, or use view "text".`,
          );
        }
      }
    }
    const policy = await createPathPolicyForContext(context);
    const resolved = await policy.resolve(args.path);
    if (!resolved.exists) {
      throw new ToolportError(
        'not_found',
        `File not found: ${args.path} (resolved to ${resolved.realPath}). Use list_directory or glob to find it.`,
        { details: { argument: 'path', path: resolved.realPath } },
      );
    }
    const isText = view === 'text';
    const file = await readCappedFile(resolved.realPath, {
      capBytes: isText ? TEXT_VIEW_CAP_BYTES : BYTE_VIEW_CAP_BYTES,
      capDescription: isText
        ? 'the 10 MiB cap of the text view; use grep to find what you need in it'
        : 'the 256 KiB cap of the byte views (hex, base64), which return the whole file and have no window',
      ...(isText
        ? {
            binaryRefusal:
              `${args.path} looks binary (a NUL byte in its first 8 KiB), so the text view refuses it. ` +
              'Read it with view "hex" or view "base64" (whole file, up to 256 KiB).',
          }
        : {}),
      policy,
      displayPath: args.path,
      signal: context.signal,
    });
    // Recorded for a partial window too: the guard of write_file compares whole-file hashes (FS-1).
    await getFreshnessLedger(context).recordHash(getFreshnessScope(context), file.realPath, file.sha256);
    const common = { path: file.realPath, size: file.size, sha256: file.sha256 };
    if (!isText) {
      return {
        content: file.bytes.toString(view),
        ...common,
        totalLines: 0,
        startLine: 0,
        endLine: 0,
        truncated: false,
        view,
      };
    }
    const window = formatTextWindow(
      new TextDecoder('utf-8', { ignoreBOM: true }).decode(file.bytes),
      args.startLine ?? 1,
      args.maxLines ?? DEFAULT_MAX_LINES,
    );
    const { content, ...rest } = window;
    return { content, ...common, ...rest };
  },
});
