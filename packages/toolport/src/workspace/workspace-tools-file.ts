import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isToolportError } from '../core/errors.ts';
import { precompileToolArgumentsSchema } from '../core/tool-arguments.ts';
import { TOOL_NAME_PATTERN } from '../core/tool-registry.ts';
import type { JsonSchema } from '../core/tool-types.ts';
import { createPathPolicy } from '../fs/resolve-and-validate-path.ts';
import { listSecretReferences } from '../mcp/resolve-secret-references.ts';

/**
 * WS-1: `tools.json` at a workspace's root, exactly the seed's format — `tools[]` of `{name, description, script,
 * timeout?, parameters?, headers?}` — validated entry by entry so every error names the tool (index and name) and
 * the field. The script must resolve (real path, through the path policy) to a file inside the workspace.
 */

export const WORKSPACE_TOOLS_FILE = 'tools.json';
export const DEFAULT_WORKSPACE_TOOL_TIMEOUT_SECONDS = 30;
export const MIN_WORKSPACE_TOOL_TIMEOUT_SECONDS = 1;
export const MAX_WORKSPACE_TOOL_TIMEOUT_SECONDS = 600;
const MAX_TOOLS_FILE_BYTES = 1024 * 1024;
const MAX_SCRIPT_BYTES = 1024 * 1024;

export interface WorkspaceToolSpec {
  name: string;
  description: string;
  /** As written in tools.json (workspace-relative): shown in errors and stack traces. */
  script: string;
  /** The real path that was checked, and the one read at each call. */
  scriptRealPath: string;
  timeoutSeconds: number;
  parameters: JsonSchema;
  /** Header templates (`Bearer {{API_KEY}}`): resolved host-side at each call, never shown to a model or script. */
  headers: Readonly<Record<string, string>>;
  /** The secrets the header templates name. */
  secretNames: readonly string[];
}

export interface WorkspaceToolLoadError {
  /** Index in `tools[]`; -1 for the file itself. */
  index: number;
  name?: string;
  field: string;
  message: string;
}

export interface WorkspaceToolsFile {
  directory: string;
  path: string;
  /** sha256 (hex) of the file's bytes: what a user trusts (`POST /api/workspace-trust`). */
  sha256: string;
  tools: WorkspaceToolSpec[];
  errors: WorkspaceToolLoadError[];
}

export interface LoadWorkspaceToolsOptions {
  /** Names a workspace tool may not take: built-ins, code tools, meta-tools. */
  isReservedName?: (name: string) => boolean;
  /** Paths a script may not be read from even inside the workspace (the server's data directory). */
  deniedPaths?: readonly string[];
}

const ENTRY_SCHEMA = {
  type: 'object',
  required: ['name', 'description', 'script'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: TOOL_NAME_PATTERN.source },
    description: { type: 'string', minLength: 1 },
    script: { type: 'string', minLength: 1 },
    timeout: {
      type: 'integer',
      minimum: MIN_WORKSPACE_TOOL_TIMEOUT_SECONDS,
      maximum: MAX_WORKSPACE_TOOL_TIMEOUT_SECONDS,
    },
    parameters: { type: 'object' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

// Compiled on the first load, not at import (`toolport mcp --workdir` start-up).
let validateEntry: ValidateFunction | undefined;
function getEntryValidator(): ValidateFunction {
  validateEntry ??= new Ajv({ allErrors: true, strict: false }).compile(ENTRY_SCHEMA);
  return validateEntry;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function describeAjvError(error: ErrorObject): { field: string; message: string } {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (error.keyword === 'required') {
    const missing = String(error.params.missingProperty);
    return { field: missing, message: `\`${missing}\` is required.` };
  }
  if (error.keyword === 'additionalProperties' && path === '') {
    const extra = String(error.params.additionalProperty);
    return {
      field: extra,
      message: `unknown field \`${extra}\` (allowed: name, description, script, timeout, parameters, headers).`,
    };
  }
  const field = path === '' ? '(tool)' : path;
  if (error.keyword === 'pattern' && field === 'name') {
    return { field, message: 'names must be 1-64 letters, digits, "_" or "-" (^[a-zA-Z0-9_-]{1,64}$).' };
  }
  if (field === 'timeout') {
    return {
      field,
      message: `\`timeout\` must be a whole number of seconds from ${MIN_WORKSPACE_TOOL_TIMEOUT_SECONDS} to ${MAX_WORKSPACE_TOOL_TIMEOUT_SECONDS}.`,
    };
  }
  return { field, message: `\`${field}\` ${error.message ?? 'is invalid'}.` };
}

/** Reads `<directory>/tools.json`; `undefined` when the workspace has none. Never throws for the file's content. */
export async function loadWorkspaceToolsFile(
  directory: string,
  options: LoadWorkspaceToolsOptions = {},
): Promise<WorkspaceToolsFile | undefined> {
  const path = join(directory, WORKSPACE_TOOLS_FILE);
  let bytes: Buffer;
  try {
    const info = await stat(path);
    if (!info.isFile()) return undefined;
    if (info.size > MAX_TOOLS_FILE_BYTES) {
      return fileFailure(
        directory,
        path,
        Buffer.alloc(0),
        `tools.json is larger than ${MAX_TOOLS_FILE_BYTES} bytes.`,
      );
    }
    bytes = await readFile(path);
  } catch {
    return undefined;
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return fileFailure(directory, path, bytes, `tools.json is not valid JSON: ${(error as Error).message}`);
  }
  const entries = (document as { tools?: unknown } | null)?.tools;
  if (
    typeof document !== 'object' ||
    document === null ||
    Array.isArray(document) ||
    !Array.isArray(entries)
  ) {
    return fileFailure(directory, path, bytes, 'tools.json must be an object with a `tools` array.');
  }

  const policy = await createPathPolicy({
    workingDirectory: directory,
    mode: 'agent',
    restrictToWorkingDirectory: true,
    deniedPaths: options.deniedPaths ?? [],
  });
  const tools: WorkspaceToolSpec[] = [];
  const errors: WorkspaceToolLoadError[] = [];
  const seen = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    const name =
      typeof (entry as { name?: unknown } | null)?.name === 'string'
        ? (entry as { name: string }).name
        : undefined;
    const fail = (field: string, message: string): void => {
      errors.push({ index, ...(name === undefined ? {} : { name }), field, message });
    };
    const validate = getEntryValidator();
    if (!validate(entry)) {
      for (const error of validate.errors ?? []) {
        const described = describeAjvError(error);
        fail(described.field, described.message);
      }
      continue;
    }
    const tool = entry as {
      name: string;
      description: string;
      script: string;
      timeout?: number;
      parameters?: JsonSchema;
      headers?: Record<string, string>;
    };
    const before = errors.length;
    const previous = seen.get(tool.name);
    if (previous !== undefined)
      fail('name', `duplicate name: tools[${previous}] is also named ${tool.name}.`);
    else seen.set(tool.name, index);
    if (options.isReservedName?.(tool.name) === true) {
      fail('name', `${tool.name} is already taken by a built-in, code or workspace meta-tool; rename it.`);
    }
    const parameters = tool.parameters ?? { type: 'object', properties: {} };
    if (parameters.type !== 'object') {
      fail('parameters', '`parameters` must be a JSON Schema of type "object".');
    } else {
      try {
        precompileToolArgumentsSchema(parameters);
      } catch (error) {
        fail('parameters', `\`parameters\` is not a valid JSON Schema: ${(error as Error).message}`);
      }
    }
    const secretNames = new Set<string>();
    for (const [header, template] of Object.entries(tool.headers ?? {})) {
      if (!HEADER_NAME.test(header))
        fail(`headers.${header}`, `${JSON.stringify(header)} is not a valid header name.`);
      const references = listSecretReferences(template);
      const braces = (template.match(/\{\{/g) ?? []).length;
      if (braces !== references.length) {
        fail(
          `headers.${header}`,
          'templates must be {{SECRET_NAME}} (letters, digits and "_", starting with a letter or "_").',
        );
      }
      for (const reference of references) secretNames.add(reference);
    }
    const scriptRealPath = await checkScript(policy, directory, tool.script, fail);
    if (errors.length > before || scriptRealPath === undefined) continue;
    tools.push({
      name: tool.name,
      description: tool.description,
      script: tool.script,
      scriptRealPath,
      timeoutSeconds: tool.timeout ?? DEFAULT_WORKSPACE_TOOL_TIMEOUT_SECONDS,
      parameters,
      headers: Object.freeze({ ...tool.headers }),
      secretNames: [...secretNames],
    });
  }
  return { directory, path, sha256, tools, errors };
}

async function checkScript(
  policy: Awaited<ReturnType<typeof createPathPolicy>>,
  directory: string,
  script: string,
  fail: (field: string, message: string) => void,
): Promise<string | undefined> {
  try {
    const resolved = await policy.resolve(script, 'script');
    if (!resolved.exists) {
      fail('script', `${script} does not exist in the workspace.`);
      return undefined;
    }
    const info = await stat(resolved.realPath);
    if (!info.isFile()) {
      fail('script', `${script} is not a file.`);
      return undefined;
    }
    if (info.size > MAX_SCRIPT_BYTES) {
      fail('script', `${script} is larger than ${MAX_SCRIPT_BYTES} bytes.`);
      return undefined;
    }
    return resolved.realPath;
  } catch (error) {
    const message = isToolportError(error) ? error.message : String(error);
    fail('script', `${script} must be a file inside the workspace ${directory}: ${message}`);
    return undefined;
  }
}

function fileFailure(directory: string, path: string, bytes: Buffer, message: string): WorkspaceToolsFile {
  return {
    directory,
    path,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    tools: [],
    errors: [{ index: -1, field: '(file)', message }],
  };
}

/** One line per error, for logs, CLI output and MCP results: `tools[2] (create-ticket) timeout: …`. */
export function formatWorkspaceToolErrors(errors: readonly WorkspaceToolLoadError[]): string {
  return errors
    .map((error) =>
      error.index < 0
        ? `tools.json: ${error.message}`
        : `tools[${error.index}]${error.name === undefined ? '' : ` (${error.name})`} ${error.field}: ${error.message}`,
    )
    .join('\n');
}
