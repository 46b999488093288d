import { getDefaultToolSettings } from '../../src/core/settings-policy.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type {
  RegisteredTool,
  SettingValue,
  ToolContext,
  ToolMode,
  ToolServices,
} from '../../src/core/tool-types.ts';

export interface ShellContextOptions {
  parameters?: Record<string, SettingValue>;
  mode?: ToolMode;
  workingDirectory?: string;
  signal?: AbortSignal;
  services?: ToolServices;
}

/** A ToolContext as executeTool builds it, for calling a shell tool's execute directly. */
export function shellContext(tool: RegisteredTool, options: ShellContextOptions = {}): ToolContext {
  const defaults = getDefaultToolSettings(tool);
  return {
    toolName: tool.definition.name,
    callId: 'test-call',
    userId: 'test-user',
    chatId: 'test-chat',
    agentId: undefined,
    workingDirectory: options.workingDirectory,
    mode: options.mode ?? 'chat',
    signal: options.signal ?? new AbortController().signal,
    settings: { enabled: true, parameters: { ...defaults.parameters, ...options.parameters } },
    reportProgress: () => {},
    log: () => {},
    emitPartialResult: () => {},
    services: options.services ?? {},
    logger: silentLogger,
  };
}
