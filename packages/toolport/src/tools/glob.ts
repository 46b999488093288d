import { stat } from 'node:fs/promises';
import { sep } from 'node:path';
import picomatch from 'picomatch';
import { ToolArgumentError, ToolportError } from '../core/errors.ts';
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
  RESPECT_GITIGNORE_DESCRIPTOR,
} from '../fs/fs-tool-settings.ts';
import { reportPath } from '../fs/report-path.ts';
import { runScan } from '../fs/scan-pool.ts';
import { describeScanStop, scanDeadlineMs } from '../fs/scan-stop-notice.ts';

/** The text the model reads. */
export const GLOB_DESCRIPTION =
  'Finds files and directories whose path matches a glob pattern: * (any characters but /), ** (any number of ' +
  'directories), ?, [abc], {a,b}, and a leading ! to negate. Patterns are relative to cwd (default: the working ' +
  'directory), e.g. "**/*.ts", "src/**/test_*.py", "*.{json,yaml}". Dotfiles are skipped unless the pattern names ' +
  'them (".github/**"). Result paths are relative to the working directory and can be passed straight to read_file.';

export const GLOB_DEFAULT_MAX_RESULTS = 200;

interface GlobArguments {
  pattern: string;
  cwd?: string;
}

export interface GlobResult {
  pattern: string;
  /** Input echo: cwd as received, or the directory it defaulted to. */
  cwd: string;
  matches: string[];
  truncated: boolean;
  notice?: string;
}

const MAX_RESULTS_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'maxResults',
  title: 'Maximum results',
  type: 'integer',
  description: 'The search stops after this many paths.',
  default: GLOB_DEFAULT_MAX_RESULTS,
  minimum: 1,
  maximum: 5000,
};

const INCLUDE_DOTFILES_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'includeDotfiles',
  title: 'Include dotfiles',
  type: 'boolean',
  description: 'Let wildcards match names that start with a dot.',
  default: false,
};

const ABSOLUTE_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'absolute',
  title: 'Absolute paths',
  type: 'boolean',
  description: 'Report absolute paths instead of paths relative to the working directory.',
  default: false,
};

/** True when some segment of the pattern explicitly starts with a dot, so dot directories must be walked. */
function namesDotSegment(pattern: string): boolean {
  return pattern.split('/').some((segment) => segment.startsWith('.') && segment !== '.' && segment !== '..');
}

export const globTool = defineTool<GlobArguments>({
  // Issue 16: permission patterns match the `path` argument (path globs).
  permissionSubject: 'path',
  definition: {
    name: 'glob',
    description: GLOB_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Glob pattern, e.g. "**/*.ts".' },
        cwd: {
          type: 'string',
          description:
            'Directory the pattern is relative to: absolute, starting with ~/, or relative to the working directory.',
        },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Glob',
    description: 'Lets the model find files by name pattern, within the allowed paths.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {
      ...PATH_POLICY_DEFAULTS,
      maxResults: GLOB_DEFAULT_MAX_RESULTS,
      includeDotfiles: false,
      absolute: false,
      respectGitignore: false,
      timeoutSeconds: TIMEOUT_SECONDS_DESCRIPTOR.default,
    },
    parameterDescriptors: [
      ...PATH_POLICY_DESCRIPTORS,
      MAX_RESULTS_DESCRIPTOR,
      INCLUDE_DOTFILES_DESCRIPTOR,
      ABSOLUTE_DESCRIPTOR,
      RESPECT_GITIGNORE_DESCRIPTOR,
      TIMEOUT_SECONDS_DESCRIPTOR,
    ],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: async (args, context): Promise<GlobResult> => {
    const parameters = context.settings.parameters;
    const maxResults = clampIntegerSetting(parameters.maxResults, {
      minimum: 1,
      maximum: 5000,
      fallback: GLOB_DEFAULT_MAX_RESULTS,
    });
    const includeDotfiles = parameters.includeDotfiles === true;
    const absolute = parameters.absolute === true;
    if (args.pattern.trim() === '') {
      throw new ToolArgumentError('pattern', 'a glob pattern such as "**/*.ts"', 'an empty string');
    }
    const policy = await createPathPolicyForContext(context);
    // PATH-1: the working directory in agent mode, else the process cwd.
    const cwdInput = args.cwd ?? policy.baseDirectory;
    const cwd = await policy.resolve(cwdInput, 'cwd');
    if (!cwd.exists || !(await stat(cwd.realPath)).isDirectory()) {
      throw new ToolportError('not_found', `cwd ${cwdInput} is not an existing directory.`, {
        details: { argument: 'cwd', path: cwd.realPath },
      });
    }

    // Walk from the pattern's static prefix ("src/" of "src/**/*.ts"), resolved through the policy like any path.
    const scanned = picomatch.scan(args.pattern);
    let walkRoot = cwd.realPath;
    let matchPattern = args.pattern;
    if (!scanned.negated && scanned.base !== '') {
      const base = await policy.resolve(`${cwd.realPath}${sep}${scanned.base}`, 'pattern');
      if (!base.exists) return { pattern: args.pattern, cwd: cwdInput, matches: [], truncated: false };
      if (!scanned.isGlob) {
        const shown = absolute ? base.realPath : reportPath(base.realPath, policy.anchorDirectory);
        return { pattern: args.pattern, cwd: cwdInput, matches: [shown], truncated: false };
      }
      if (!(await stat(base.realPath)).isDirectory()) {
        return { pattern: args.pattern, cwd: cwdInput, matches: [], truncated: false };
      }
      walkRoot = base.realPath;
      matchPattern = scanned.glob;
    }

    const scan = await runScan<string>(
      {
        kind: 'glob',
        root: walkRoot,
        pattern: matchPattern,
        includeDotfiles,
        keepDotEntries: !includeDotfiles && namesDotSegment(matchPattern),
        deniedRoots: [...policy.deniedRoots],
        respectGitignore: parameters.respectGitignore === true,
        maxResults,
      },
      { deadlineMs: scanDeadlineMs(getToolTimeoutMs(context.settings)), signal: context.signal },
    );
    const rootPrefix = walkRoot.endsWith(sep) ? walkRoot : walkRoot + sep;
    const matches = scan.items
      .map((relativePath) => {
        const absolutePath = rootPrefix + relativePath;
        return absolute ? absolutePath : reportPath(absolutePath, policy.anchorDirectory);
      })
      .sort();
    const notice = describeScanStop('glob', scan.stopReason, scan.stats, maxResults);
    return {
      pattern: args.pattern,
      cwd: cwdInput,
      matches,
      truncated: notice !== undefined,
      ...(notice === undefined ? {} : { notice }),
    };
  },
});
