import { stat } from 'node:fs/promises';
import { basename, dirname, sep } from 'node:path';
import { GrepPatternError, ToolportError } from '../core/errors.ts';
import {
  clampIntegerSetting,
  getToolTimeoutMs,
  TIMEOUT_SECONDS_DESCRIPTOR,
} from '../core/settings-policy.ts';
import { defineTool, type ToolParameterDescriptor } from '../core/tool-types.ts';
import {
  createPathPolicyForContext,
  PATH_POLICY_DEFAULTS,
  PATH_POLICY_DESCRIPTORS,
  pathOrWorkingDirectory,
  RESPECT_GITIGNORE_DESCRIPTOR,
} from '../fs/fs-tool-settings.ts';
import { anchorPrefix } from '../fs/report-path.ts';
import { assertNotHardLinked } from '../fs/resolve-and-validate-path.ts';
import { requiredLiteral } from '../fs/required-literal.ts';
import { runScan } from '../fs/scan-pool.ts';
import { describeScanStop, scanDeadlineMs } from '../fs/scan-stop-notice.ts';

/** The text the model reads. */
export const GREP_DESCRIPTION =
  'Searches file contents for lines matching a regular expression (JavaScript syntax) and returns {file, line, ' +
  'text} for each match. path is a file or a directory (absolute, starting with ~/, or relative to the working ' +
  'directory; omit it only when the system prompt names a working directory). glob filters the files of a directory ' +
  'search, e.g. "*.ts" or "src/**/*.{js,jsx}". Binary files, files over the size limit and dotfiles are skipped. ' +
  'Result paths are relative to the working directory and can be passed straight to read_file.';

export const GREP_DEFAULT_MAX_RESULTS = 100;
export const GREP_DEFAULT_MAX_MATCHES_PER_FILE = 20;
export const GREP_DEFAULT_MAX_FILE_SIZE_BYTES = 1024 * 1024;

interface GrepArguments {
  pattern: string;
  path?: string;
  glob?: string;
  caseInsensitive?: boolean;
}

export interface GrepMatch {
  file: string;
  line: number;
  text: string;
}

export interface GrepResult {
  pattern: string;
  /** Input echo: the path as received, or the working directory it defaulted to. */
  path: string;
  matches: GrepMatch[];
  truncated: boolean;
  /** Present when `truncated`: what stopped the search and what to do. */
  notice?: string;
  filesSearched: number;
  skipped: { binary: number; tooLarge: number; unreadable: number };
}

const MAX_RESULTS_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'maxResults',
  title: 'Maximum matches',
  type: 'integer',
  description: 'The search stops after this many matches.',
  default: GREP_DEFAULT_MAX_RESULTS,
  minimum: 1,
  maximum: 5000,
};

const MAX_MATCHES_PER_FILE_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'maxMatchesPerFile',
  title: 'Maximum matches per file',
  type: 'integer',
  description: 'At most this many matches are reported from one file.',
  default: GREP_DEFAULT_MAX_MATCHES_PER_FILE,
  minimum: 1,
  maximum: 5000,
};

const MAX_FILE_SIZE_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'maxFileSizeBytes',
  title: 'Maximum file size',
  type: 'integer',
  description: 'Larger files are skipped.',
  default: GREP_DEFAULT_MAX_FILE_SIZE_BYTES,
  minimum: 1024,
  maximum: 64 * 1024 * 1024,
  unit: 'bytes',
};

const INCLUDE_DOTFILES_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'includeDotfiles',
  title: 'Include dotfiles',
  type: 'boolean',
  description: 'Search files and directories whose name starts with a dot.',
  default: false,
};

export function compileGrepPattern(pattern: string, caseInsensitive: boolean): RegExp {
  try {
    return new RegExp(pattern, caseInsensitive ? 'i' : '');
  } catch (error) {
    throw new GrepPatternError(
      pattern,
      error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error),
    );
  }
}

/** The byte prefilter is case-sensitive: with caseInsensitive it is used only for a literal without letters. */
function prefilterLiteral(pattern: string, caseInsensitive: boolean): string | undefined {
  const literal = requiredLiteral(pattern);
  if (literal === undefined || (caseInsensitive && literal.toLowerCase() !== literal.toUpperCase()))
    return undefined;
  return literal;
}

function compareMatches(left: GrepMatch, right: GrepMatch): number {
  return left.file < right.file ? -1 : left.file > right.file ? 1 : left.line - right.line;
}

export const grepTool = defineTool<GrepArguments>({
  // Issue 16: permission patterns match the `path` argument (path globs).
  permissionSubject: 'path',
  definition: {
    name: 'grep',
    description: GREP_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Regular expression (JavaScript syntax), matched per line.' },
        path: {
          type: 'string',
          description:
            'File or directory to search: absolute, starting with ~/, or relative to the working directory. ' +
            'Required when the chat has no working directory.',
        },
        glob: {
          type: 'string',
          description:
            'Only search files matching this glob (directory searches), e.g. "*.ts" or "src/**/*.md".',
        },
        caseInsensitive: { type: 'boolean', description: 'Ignore case (default false).' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Grep',
    description: 'Lets the model search file contents with a regular expression, within the allowed paths.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {
      ...PATH_POLICY_DEFAULTS,
      maxResults: GREP_DEFAULT_MAX_RESULTS,
      maxMatchesPerFile: GREP_DEFAULT_MAX_MATCHES_PER_FILE,
      maxFileSizeBytes: GREP_DEFAULT_MAX_FILE_SIZE_BYTES,
      includeDotfiles: false,
      respectGitignore: false,
      timeoutSeconds: TIMEOUT_SECONDS_DESCRIPTOR.default,
    },
    parameterDescriptors: [
      ...PATH_POLICY_DESCRIPTORS,
      MAX_RESULTS_DESCRIPTOR,
      MAX_MATCHES_PER_FILE_DESCRIPTOR,
      MAX_FILE_SIZE_DESCRIPTOR,
      INCLUDE_DOTFILES_DESCRIPTOR,
      RESPECT_GITIGNORE_DESCRIPTOR,
      TIMEOUT_SECONDS_DESCRIPTOR,
    ],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: async (args, context): Promise<GrepResult> => {
    const parameters = context.settings.parameters;
    const maxResults = clampIntegerSetting(parameters.maxResults, {
      minimum: 1,
      maximum: 5000,
      fallback: GREP_DEFAULT_MAX_RESULTS,
    });
    const maxMatchesPerFile = clampIntegerSetting(parameters.maxMatchesPerFile, {
      minimum: 1,
      maximum: 5000,
      fallback: GREP_DEFAULT_MAX_MATCHES_PER_FILE,
    });
    const maxFileSizeBytes = clampIntegerSetting(parameters.maxFileSizeBytes, {
      minimum: 1024,
      maximum: 64 * 1024 * 1024,
      fallback: GREP_DEFAULT_MAX_FILE_SIZE_BYTES,
    });
    const includeDotfiles = parameters.includeDotfiles === true;
    const regex = compileGrepPattern(args.pattern, args.caseInsensitive === true);

    const policy = await createPathPolicyForContext(context);
    const input = pathOrWorkingDirectory(args.path, policy, 'grep');
    const resolved = await policy.resolve(input);
    if (!resolved.exists) {
      throw new ToolportError('not_found', `Nothing at ${input} (resolved to ${resolved.realPath}).`, {
        details: { argument: 'path', path: resolved.realPath },
      });
    }
    const stats = await stat(resolved.realPath);
    const isFile = !stats.isDirectory();
    if (isFile && !stats.isFile()) {
      throw new ToolportError('validation_failed', `${input} is neither a regular file nor a directory.`, {
        details: { argument: 'path' },
      });
    }
    if (isFile && policy.refusesHardLinks) assertNotHardLinked(stats, resolved.realPath);
    const root = resolved.realPath;
    const scan = await runScan<[string, number, string]>(
      {
        kind: 'grep',
        root,
        isFile,
        fileName: basename(root),
        regexSource: regex.source,
        regexFlags: regex.flags,
        requiredLiteral: prefilterLiteral(args.pattern, args.caseInsensitive === true),
        fileGlob: args.glob,
        includeDotfiles,
        keepDotEntries: false,
        deniedRoots: [...policy.deniedRoots],
        refuseHardLinks: policy.refusesHardLinks,
        respectGitignore: parameters.respectGitignore === true,
        maxResults,
        maxFileSizeBytes,
        maxMatchesPerFile,
      },
      { deadlineMs: scanDeadlineMs(getToolTimeoutMs(context.settings)), signal: context.signal },
    );
    // PATH-3: re-anchor from the search root to the working directory (absolute when outside or unbound).
    const searchDirectory = isFile ? dirname(root) : root;
    const prefix = anchorPrefix(searchDirectory, policy.anchorDirectory);
    const absolutePrefix = searchDirectory.endsWith(sep) ? searchDirectory : searchDirectory + sep;
    const matches = scan.items
      .map(([file, line, text]) => ({
        file: prefix === undefined ? absolutePrefix + file : prefix + file,
        line,
        text,
      }))
      .sort(compareMatches);
    const notice = describeScanStop('grep', scan.stopReason, scan.stats, maxResults);
    return {
      pattern: args.pattern,
      path: args.path ?? input,
      matches,
      truncated: notice !== undefined,
      ...(notice === undefined ? {} : { notice }),
      filesSearched: scan.stats.filesScanned,
      skipped: {
        binary: scan.stats.skippedBinary,
        tooLarge: scan.stats.skippedTooLarge,
        unreadable: scan.stats.skippedUnreadable,
      },
    };
  },
});
