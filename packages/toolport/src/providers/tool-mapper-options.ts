import type { ToolportLogger } from '../core/tool-types.ts';

export interface ToolMapperOptions {
  /** Told about every tool sent with `strict: false` and why (PROV-2: visible, never silently dropped). */
  onNonStrict?: (toolName: string, reason: string) => void;
  /** Logs the same at `warn`. */
  logger?: ToolportLogger;
}

export function reportNonStrict(
  options: ToolMapperOptions | undefined,
  toolName: string,
  reason: string,
): void {
  options?.onNonStrict?.(toolName, reason);
  options?.logger?.warn({ tool: toolName, reason }, 'tool sent without strict mode');
}
