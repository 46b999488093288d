import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { Type } from 'typebox';
import { ToolportError } from '../../core/errors.ts';
import { assertWorkspaceToolsAllowed } from '../../services/workspace-tool-access.ts';
import type { ToolportServices } from '../../services/toolport-services.ts';
import { getAuthenticatedUser } from '../plugins/auth.ts';
import { errorResponses, ErrorResponseSchema } from '../schemas/error-schemas.ts';
import type { ToolportApp } from '../server-types.ts';

const WorkspaceTrustSchema = Type.Object({
  directory: Type.String(),
  /** What the user trusted (absent: never trusted). */
  sha256: Type.Union([Type.String(), Type.Null()]),
  /** The tools.json on disk now (null: the workspace has none). */
  currentSha256: Type.Union([Type.String(), Type.Null()]),
  trusted: Type.Boolean({ description: 'True when the file on disk is the one the user trusted.' }),
  tools: Type.Array(Type.String(), { description: 'The names tools.json defines (valid entries).' }),
  errors: Type.Array(Type.Unknown(), {
    description: "Invalid entries, each naming the tool's index, name and field.",
  }),
});

const TrustBodySchema = Type.Object(
  {
    directory: Type.String({ description: 'Absolute path of the workspace (the chat working directory).' }),
    sha256: Type.String({
      pattern: '^[0-9a-fA-F]{64}$',
      description: 'sha256 (hex) of the tools.json you reviewed.',
    }),
  },
  { additionalProperties: false },
);

async function realDirectory(directory: string): Promise<string> {
  if (!isAbsolute(directory)) {
    throw new ToolportError('validation_failed', '`directory` must be an absolute path.', {
      details: { argument: 'directory' },
    });
  }
  try {
    const real = await realpath(directory);
    if ((await stat(real)).isDirectory()) return real;
  } catch {
    // Reported below.
  }
  throw new ToolportError('not_found', `${directory} is not a directory.`, {
    details: { argument: 'directory' },
  });
}

/**
 * WS-1 workspace trust: a tools.json runs with its user's secrets, so in `serve` a user approves the exact file
 * (its sha256) before its tools run. GET lists every workspace the user trusted or has a chat in, trusted or not.
 */
export function registerWorkspaceTrustRoutes(app: ToolportApp, services: ToolportServices): void {
  const describe = async (userId: string, directory: string) => {
    const set = services.workspaceTools.getSet(directory);
    await set.refreshIfChanged();
    const trust = await services.repositories.workspaceTrust.get(userId, directory);
    const current = set.present ? (set.sha256 ?? null) : null;
    return {
      directory,
      sha256: trust?.sha256 ?? null,
      currentSha256: current,
      trusted: trust !== undefined && current !== null && trust.sha256 === current,
      tools: set.specs.map((spec) => spec.name),
      errors: [...set.errors],
    };
  };

  app.get(
    '/api/workspace-trust',
    {
      schema: {
        summary: "The caller's workspaces with a tools.json, trusted or not",
        tags: ['workspace'],
        response: {
          200: Type.Object({ workspaces: Type.Array(WorkspaceTrustSchema) }),
          401: errorResponses[401],
        },
      },
    },
    async (request) => {
      const user = getAuthenticatedUser(request);
      const directories = new Set<string>();
      for (const trust of await services.repositories.workspaceTrust.list(user.id))
        directories.add(trust.directory);
      for (const chat of await services.chats.list(user.id)) {
        if (chat.workingDirectory !== null && chat.mode === 'agent') directories.add(chat.workingDirectory);
      }
      const workspaces = [];
      for (const directory of [...directories].sort()) {
        const described = await describe(user.id, directory);
        if (described.sha256 !== null || described.currentSha256 !== null) workspaces.push(described);
      }
      return { workspaces };
    },
  );

  app.post(
    '/api/workspace-trust',
    {
      schema: {
        summary: "Trust a workspace's tools.json (the exact file you reviewed, by sha256)",
        tags: ['workspace'],
        body: TrustBodySchema,
        response: { 200: WorkspaceTrustSchema, ...errorResponses, 403: ErrorResponseSchema },
      },
    },
    async (request) => {
      const user = getAuthenticatedUser(request);
      await assertWorkspaceToolsAllowed(services.repositories.users, services.policy, user.id);
      const directory = await realDirectory(request.body.directory);
      const sha256 = request.body.sha256.toLowerCase();
      const set = services.workspaceTools.getSet(directory);
      await set.refreshIfChanged();
      if (!set.present) {
        throw new ToolportError('not_found', `${directory} has no tools.json.`, { details: { directory } });
      }
      if (set.sha256 !== sha256) {
        throw new ToolportError(
          'conflict',
          `The tools.json in ${directory} is not the file you reviewed: its sha256 is ${set.sha256}. Review it again.`,
          { details: { directory, currentSha256: set.sha256 } },
        );
      }
      await services.repositories.workspaceTrust.put(user.id, directory, sha256);
      return describe(user.id, directory);
    },
  );
}
