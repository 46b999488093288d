import type { ScanStopReason } from './scan-pool.ts';
import type { ScanStats } from './scan-protocol.ts';

/** A scan returns what it found a little before the tool's budget, so the partial result reaches the model. */
export function scanDeadlineMs(timeoutMs: number): number {
  return Math.max(100, timeoutMs - Math.max(1000, timeoutMs * 0.1));
}

/** The notice of a truncated grep or glob result: what stopped it and what the model can do. */
export function describeScanStop(
  kind: 'grep' | 'glob',
  reason: ScanStopReason | undefined,
  stats: ScanStats,
  limit: number,
): string | undefined {
  const parts: string[] = [];
  if (reason === 'max_results') {
    parts.push(
      kind === 'grep'
        ? `Stopped at the limit of ${limit} matches; narrow the pattern, the path or the glob to see the rest.`
        : `Stopped at the limit of ${limit} paths; use a narrower pattern or cwd to see the rest.`,
    );
  } else if (reason === 'time_budget') {
    parts.push(
      kind === 'grep'
        ? "Stopped at the tool's time budget before the search finished (a very large tree or a slow regex); " +
            'these are the matches found so far. Narrow the path or the glob, or simplify the pattern.'
        : "Stopped at the tool's time budget before the walk finished (a very large tree); these are the paths " +
            'found so far. Use a narrower pattern or cwd.',
    );
  }
  if (stats.filesCappedPerFile > 0) {
    parts.push(
      `${stats.filesCappedPerFile} file(s) had more matches than the per-file limit; grep that file alone or read it.`,
    );
  }
  return parts.length === 0 ? undefined : parts.join(' ');
}
