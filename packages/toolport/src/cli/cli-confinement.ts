import type { ToolServices } from '../core/tool-types.ts';
import { cliFileServices } from '../policy/cli-file-access.ts';
import type { CliIo } from './cli-io.ts';
import { resolveDataDirectory } from './server-config.ts';

export { CONFINEMENT_OPTIONS } from '../policy/cli-file-access.ts';

/** The file confinement of `tools run`, `mcp` and `chat` from their parsed flags (AUTH-2, `cliFileServices`). */
export function confinementFromFlags(
  values: {
    'allow-path'?: string[] | undefined;
    'no-confine'?: boolean | undefined;
    'data-dir'?: string | undefined;
  },
  workingDirectory: string | undefined,
  io: Pick<CliIo, 'cwd' | 'env'>,
): Pick<ToolServices, 'fileAccess' | 'protectedPaths'> {
  return cliFileServices({
    workingDirectory,
    allowPaths: values['allow-path'],
    noConfine: values['no-confine'],
    cwd: io.cwd,
    dataDirectory: resolveDataDirectory(values['data-dir'], io.env, io.cwd),
  });
}
