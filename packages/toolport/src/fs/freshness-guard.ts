import { ToolportError } from '../core/errors.ts';
import type { FreshnessLedger } from '../core/tool-types.ts';
import { staleFileError } from './atomic-write.ts';

/**
 * SPEC FS-2: overwriting an existing file requires that this scope read it (any view) and that its sha256 has not
 * changed since. There is deliberately no bypass argument. Returns the hash the write must still find on disk.
 */
export async function assertReadAndFresh(
  ledger: FreshnessLedger,
  scope: string,
  realPath: string,
  currentSha256: string,
  displayPath: string,
  toolName: string,
): Promise<string> {
  const recorded = await ledger.getRecordedHash(scope, realPath);
  if (recorded === undefined) {
    throw new ToolportError(
      'conflict',
      `${displayPath} already exists and has not been read in this chat. Read it with read_file first (any view; ` +
        `view "base64" for a binary file), then call ${toolName} again.`,
      { details: { argument: 'path', path: realPath, reason: 'not_read' } },
    );
  }
  if (recorded !== currentSha256) throw staleFileError(displayPath, realPath);
  return recorded;
}
