import type { ToolRuntime } from '../core/tool-runtime.ts';

/**
 * SPEC PATH-1: in agent mode the bound working directory is announced to the model, so it knows where relative
 * paths resolve and what an omitted `path`/`cwd` means. Chat mode announces nothing: no directory is injected there.
 */
export function buildSystemPrompt(
  runtime: Pick<ToolRuntime, 'mode' | 'workingDirectory'>,
  basePrompt?: string,
): string | undefined {
  const parts: string[] = [];
  if (basePrompt !== undefined && basePrompt.trim() !== '') parts.push(basePrompt.trim());
  if (runtime.mode === 'agent' && runtime.workingDirectory !== undefined) {
    parts.push(
      `Working directory: ${runtime.workingDirectory}\n` +
        'Filesystem and shell tools resolve relative paths from this directory and use it when you omit ' +
        '`path` or `cwd`. Paths in tool results are relative to it.',
    );
  }
  return parts.length === 0 ? undefined : parts.join('\n\n');
}
