import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { Value } from 'typebox/value';
import { ToolportError } from '../core/errors.ts';
import { parseOutboundAllowlist } from '../net/parse-outbound-allowlist.ts';
import { MANDATORY_DENIED_PATHS } from './mandatory-denied-paths.ts';
import {
  DEFAULT_OPERATOR_POLICY,
  OperatorPolicySchema,
  freezePolicy,
  type OperatorPolicy,
} from './operator-policy.ts';

/** `<data dir>/policy.json`: read when present; `--policy FILE` (or `TOOLPORT_POLICY`) names another file. */
export const POLICY_FILE_NAME = 'policy.json';

export interface LoadOperatorPolicyOptions {
  /** `--policy FILE` (relative to `cwd`): must exist. */
  file?: string | undefined;
  dataDirectory: string;
  /** The SQLite file when the database is one (it may live outside the data directory). */
  databaseFile?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export interface LoadedOperatorPolicy {
  policy: OperatorPolicy;
  /** The file read, or undefined when none exists and the defaults apply. */
  source: string | undefined;
}

/**
 * SPEC AUTH-2 at start-up: the policy file merged over `DEFAULT_OPERATOR_POLICY` (objects merge key by key, arrays
 * and scalars replace; `deniedPaths` is the exception: it always keeps `/proc`, `/sys`, `/dev`, the data directory and
 * the database file), then the environment overrides, validated against `OperatorPolicySchema` and frozen. A file
 * that does not validate throws `validation_failed` naming the JSON path and what was expected.
 */
export function loadOperatorPolicy(options: LoadOperatorPolicyOptions): LoadedOperatorPolicy {
  const explicit = nonEmpty(options.file) ?? nonEmpty(options.env.TOOLPORT_POLICY);
  const path =
    explicit === undefined ? join(options.dataDirectory, POLICY_FILE_NAME) : resolve(options.cwd, explicit);
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (explicit !== undefined || code !== 'ENOENT') {
      throw new ToolportError(
        'validation_failed',
        `Cannot read the policy file ${path}: ${(error as Error).message}`,
      );
    }
  }
  let fromFile: unknown = {};
  if (text !== undefined) {
    try {
      fromFile = JSON.parse(text);
    } catch (error) {
      throw new ToolportError(
        'validation_failed',
        `Policy file ${path} is not valid JSON: ${(error as Error).message}`,
      );
    }
    if (!isPlainObject(fromFile)) {
      throw new ToolportError('validation_failed', `Policy file ${path}: / must be a JSON object.`);
    }
  }
  const where = text === undefined ? 'policy' : `Policy file ${path}`;
  const merged = applyEnvironmentOverrides(
    mergeOver(structuredClone(DEFAULT_OPERATOR_POLICY), fromFile),
    options.env,
    options.cwd,
  );
  assertValidPolicy(merged, where);
  const policy = merged as OperatorPolicy;
  const floor = [
    ...MANDATORY_DENIED_PATHS,
    resolve(options.dataDirectory),
    ...(options.databaseFile === undefined ? [] : [resolve(options.databaseFile)]),
  ];
  policy.deniedPaths = unique([...floor, ...policy.deniedPaths]);
  return { policy: freezePolicy(policy), source: text === undefined ? undefined : path };
}

/** Validates a complete policy (e.g. one a test or an embedder builds) the way start-up does. */
export function assertValidPolicy(candidate: unknown, where = 'policy'): asserts candidate is OperatorPolicy {
  const problems: string[] = [];
  // A union of literals reports one `const` error per choice and an `anyOf`: say "one of …" once instead.
  const choices = new Map<string, unknown[]>();
  for (const error of Value.Errors(OperatorPolicySchema, candidate)) {
    const at = error.instancePath === '' ? '/' : error.instancePath;
    if (error.keyword === 'const') {
      choices.set(at, [
        ...(choices.get(at) ?? []),
        (error.params as { allowedValue?: unknown }).allowedValue,
      ]);
      continue;
    }
    // The additionalProperties summary repeats what the per-key "schema is false" entries say with their path.
    if (error.keyword === 'additionalProperties') continue;
    if (error.keyword === 'anyOf' && choices.has(at)) {
      const allowed = choices.get(at)!.map((value) => JSON.stringify(value));
      problems.push(`${at} must be one of ${allowed.join(', ')}`);
      continue;
    }
    problems.push(`${at} ${error.keyword === 'boolean' ? 'is not a policy key' : error.message}`);
  }
  if (problems.length === 0) {
    const policy = candidate as OperatorPolicy;
    const absoluteLists = {
      workspaceRoots: policy.workspaceRoots,
      deniedPaths: policy.deniedPaths,
      codeToolRoots: policy.codeToolRoots,
      'shell/writablePaths': policy.shell.writablePaths,
    };
    for (const [key, list] of Object.entries(absoluteLists)) {
      list.forEach((entry, index) => {
        if (!isAbsolute(entry))
          problems.push(`/${key}/${index} must be an absolute path, received ${JSON.stringify(entry)}`);
      });
    }
    try {
      parseOutboundAllowlist(policy.outboundAllow);
    } catch (error) {
      problems.push(`/outboundAllow ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) {
    throw new ToolportError(
      'validation_failed',
      `${where} is invalid: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}. See docs/operator-policy.md.`,
      { details: { problems } },
    );
  }
}

/**
 * The documented environment overrides (docs/operator-policy.md): each replaces its key when set (an empty value
 * empties a list), except `TOOLPORT_DENIED_PATHS`, which adds to `deniedPaths`.
 */
function applyEnvironmentOverrides(
  policy: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Record<string, unknown> {
  const list = (value: string): string[] => value.split(':').filter((entry) => entry !== '');
  // Directory lists are `:`-separated like PATH; a relative entry is relative to the directory serve starts in.
  const directories = (value: string): string[] => list(value).map((entry) => resolve(cwd, entry));
  if (env.TOOLPORT_WORKSPACE_ROOTS !== undefined)
    policy.workspaceRoots = directories(env.TOOLPORT_WORKSPACE_ROOTS);
  if (env.TOOLPORT_CODE_TOOL_ROOTS !== undefined)
    policy.codeToolRoots = directories(env.TOOLPORT_CODE_TOOL_ROOTS);
  if (env.TOOLPORT_OUTBOUND_ALLOW !== undefined) policy.outboundAllow = env.TOOLPORT_OUTBOUND_ALLOW;
  if (env.TOOLPORT_DENIED_PATHS !== undefined && Array.isArray(policy.deniedPaths)) {
    policy.deniedPaths = [...(policy.deniedPaths as unknown[]), ...list(env.TOOLPORT_DENIED_PATHS)];
  }
  return policy;
}

/** Objects merge key by key; anything else in `override` (arrays included) replaces. */
function mergeOver(base: unknown, override: unknown): Record<string, unknown> {
  const result: Record<string, unknown> = isPlainObject(base) ? { ...base } : {};
  if (!isPlainObject(override)) return result;
  for (const [key, value] of Object.entries(override)) {
    const current = result[key];
    result[key] = isPlainObject(current) && isPlainObject(value) ? mergeOver(current, value) : value;
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
