import { readFile } from 'node:fs/promises';
import { ToolportError } from '../core/errors.ts';
import { TIMEOUT_SECONDS_DESCRIPTOR } from '../core/settings-policy.ts';
import {
  toToolLogLevel,
  type OutboundHttpClient,
  type RegisteredTool,
  type SecretReader,
  type ToolContext,
  type ToolParameterDescriptor,
} from '../core/tool-types.ts';
import { createPathPolicy } from '../fs/resolve-and-validate-path.ts';
import {
  DEFAULT_SCRIPT_MEMORY_LIMIT_MB,
  MAX_SCRIPT_MEMORY_LIMIT_MB,
  MIN_SCRIPT_MEMORY_LIMIT_MB,
  runIsolatedScript,
} from './isolate-script-runner.ts';
import { readTimeoutPragma } from './script-pragmas.ts';
import { performScriptHttpRequest } from './script-http-request.ts';
import { MAX_SCRIPT_LOG_CHARACTERS, ScriptLogCollector } from './script-log-collector.ts';
import type { BrowserLauncher, BrowserSession } from './workspace-browser.ts';
import type { WorkspaceToolSpec } from './workspace-tools-file.ts';

/** Who asked for the call (seed: ScriptTaskOrigin): `g.secrets` is blocked under `mcp`. */
export type WorkspaceScriptOrigin = 'chat' | 'api' | 'mcp';

export interface WorkspaceScriptToolOptions {
  directory: string;
  origin: WorkspaceScriptOrigin;
  /** NET-1 client for `g.http` (with the operator's TOOLPORT_OUTBOUND_ALLOW). */
  http: OutboundHttpClient;
  browser?: BrowserLauncher;
  /** Where this process takes secrets from, said when a tool needs one and there is no store. */
  missingSecretsHint: string;
  deniedPaths?: readonly string[];
  /** Checked before the script is read: the operator policy and the user's trust in this tools.json. */
  checkAllowed?: (context: ToolContext) => Promise<void>;
}

export const MEMORY_LIMIT_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'memoryLimitMb',
  title: 'Memory limit',
  type: 'integer',
  description: "The script's heap limit; a script that allocates past it is stopped.",
  default: DEFAULT_SCRIPT_MEMORY_LIMIT_MB,
  minimum: MIN_SCRIPT_MEMORY_LIMIT_MB,
  maximum: MAX_SCRIPT_MEMORY_LIMIT_MB,
  unit: 'MB',
};

/** One call may not turn into a flood of outbound requests (each is also capped in size and time by NET-1). */
export const MAX_HTTP_REQUESTS_PER_CALL = 1000;

/** executeTool's own budget sits just past the script's limit, so the script's clearer timeout error wins. */
function outerBudgetSeconds(scriptSeconds: number): number {
  return Math.min(
    TIMEOUT_SECONDS_DESCRIPTOR.maximum ?? 600,
    Math.max(TIMEOUT_SECONDS_DESCRIPTOR.minimum ?? 5, scriptSeconds + 2),
  );
}

async function resolveHeaders(
  spec: WorkspaceToolSpec,
  secrets: SecretReader | undefined,
  hint: string,
): Promise<{ headers: Record<string, string>; secretValues: string[] }> {
  if (spec.secretNames.length === 0) return { headers: { ...spec.headers }, secretValues: [] };
  if (secrets === undefined) {
    throw new ToolportError(
      'execution_failed',
      `${spec.name} needs the secret${spec.secretNames.length === 1 ? '' : 's'} ${spec.secretNames.join(', ')} ` +
        `for its headers, and this process has no secret store: ${hint}`,
      { details: { secrets: [...spec.secretNames] } },
    );
  }
  const values = new Map<string, string>();
  for (const name of spec.secretNames) {
    const value = await secrets.getSecret(name);
    if (value === undefined) {
      throw new ToolportError(
        'execution_failed',
        `${spec.name}'s headers refer to the secret {{${name}}}, which is not set. Add it in Settings → Secrets ` +
          '(PUT /api/secrets/NAME).',
        { details: { secret: name } },
      );
    }
    values.set(name, value);
  }
  const headers: Record<string, string> = {};
  for (const [header, template] of Object.entries(spec.headers)) {
    headers[header] = template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_, name: string) =>
      values.get(name)!,
    );
  }
  return { headers, secretValues: [...values.values()] };
}

/**
 * One `tools.json` entry as a tool. Each call follows the seed's order: load the script → `@timeout` → `g.tool.args`
 * → headers resolved → run with its origin → serialize main()'s value (then executeTool redacts it).
 */
export function createWorkspaceScriptTool(
  spec: WorkspaceToolSpec,
  options: WorkspaceScriptToolOptions,
): RegisteredTool {
  return {
    definition: { name: spec.name, description: spec.description, parameters: spec.parameters },
    settings: {
      title: spec.name,
      description: spec.description,
      category: 'custom',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {
        memoryLimitMb: DEFAULT_SCRIPT_MEMORY_LIMIT_MB,
        timeoutSeconds: outerBudgetSeconds(spec.timeoutSeconds),
      },
      parameterDescriptors: [
        MEMORY_LIMIT_DESCRIPTOR,
        { ...TIMEOUT_SECONDS_DESCRIPTOR, default: outerBudgetSeconds(spec.timeoutSeconds) },
      ],
    },
    annotations: { openWorldHint: true },
    execute: async (args, context) => {
      await options.checkAllowed?.(context);
      const source = await readScript(spec, options);
      const timeoutSeconds = readTimeoutPragma(source, spec.script) ?? spec.timeoutSeconds;
      const frozenArgs = structuredClone(args);
      const { headers, secretValues } = await resolveHeaders(
        spec,
        context.services.secrets,
        options.missingSecretsHint,
      );
      const logs = new ScriptLogCollector(MAX_SCRIPT_LOG_CHARACTERS, (level, line) =>
        context.log(toToolLogLevel(level), line),
      );
      let httpRequests = 0;
      // Opened on the first g.nav call only: most scripts never start a browser.
      let session: Promise<BrowserSession> | undefined;
      try {
        return await runIsolatedScript({
          source,
          filename: spec.script,
          args: frozenArgs,
          timeoutMs: timeoutSeconds * 1000,
          memoryLimitMb: Number(context.settings.parameters.memoryLimitMb ?? DEFAULT_SCRIPT_MEMORY_LIMIT_MB),
          logs,
          signal: context.signal,
          host: async (operation, payload) => {
            switch (operation) {
              case 'http':
                httpRequests += 1;
                if (httpRequests > MAX_HTTP_REQUESTS_PER_CALL) {
                  throw new ToolportError(
                    'execution_failed',
                    `g.http.makeHttpRequest: more than ${MAX_HTTP_REQUESTS_PER_CALL} requests in one call.`,
                  );
                }
                return performScriptHttpRequest(payload, headers, secretValues, options.http, context.signal);
              case 'secret':
                return readScriptSecret(payload, options.origin, context.services.secrets);
              case 'nav': {
                session ??= options.browser?.();
                if (session === undefined) {
                  throw new ToolportError(
                    'execution_failed',
                    'g.nav: no browser configured (set TOOLPORT_CHROMIUM_PATH or put chromium, chromium-browser or ' +
                      'google-chrome on PATH).',
                  );
                }
                const { action, args: navArgs } = payload as { action: string; args: unknown[] };
                return (await session).run(action, navArgs);
              }
              default:
                throw new ToolportError('execution_failed', `Unknown host operation ${operation}.`);
            }
          },
        });
      } finally {
        context.recordLogs?.(logs.text());
        await session?.then(
          (opened) => opened.close(),
          () => {},
        );
      }
    },
  };
}

async function readScript(spec: WorkspaceToolSpec, options: WorkspaceScriptToolOptions): Promise<string> {
  // Re-checked at every call: the script may have been replaced by a link out of the workspace since the load.
  const policy = await createPathPolicy({
    workingDirectory: options.directory,
    mode: 'agent',
    restrictToWorkingDirectory: true,
    deniedPaths: options.deniedPaths ?? [],
  });
  const resolved = await policy.resolve(spec.script, 'script');
  try {
    return await readFile(resolved.realPath, 'utf8');
  } catch (error) {
    throw new ToolportError('execution_failed', `Could not read ${spec.script}: ${(error as Error).message}`);
  }
}

async function readScriptSecret(
  payload: unknown,
  origin: WorkspaceScriptOrigin,
  secrets: SecretReader | undefined,
): Promise<string> {
  const name = String((payload as { name?: unknown } | null)?.name ?? '');
  if (origin === 'mcp') {
    throw new ToolportError(
      'permission_denied',
      `g.secrets.getSecret(${JSON.stringify(name)}) is blocked: this call came over MCP (origin mcp), where scripts ` +
        "may not read secrets. Use {{SECRET}} templates in the tool's headers instead.",
    );
  }
  const value = await secrets?.getSecret(name);
  if (value === undefined) {
    throw new ToolportError('not_found', `g.secrets.getSecret: no secret named ${JSON.stringify(name)}.`);
  }
  return value;
}
