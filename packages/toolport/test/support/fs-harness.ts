import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeTool, type ToolExecutionOutcome } from '../../src/core/execute-tool.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import type { FreshnessLedger, ToolMode } from '../../src/core/tool-types.ts';
import { InMemoryFreshnessLedger } from '../../src/fs/freshness-ledger.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

/** A real temporary directory, returned as its real path (macOS /tmp is a symlink). */
export async function makeTemporaryDirectory(prefix = 'toolport-fs-'): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

export async function removeDirectory(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

export interface FsHarnessOptions {
  workingDirectory?: string;
  mode?: ToolMode;
  chatId?: string;
  settings?: Record<string, unknown>;
  ledger?: FreshnessLedger;
}

export interface FsHarness {
  ledger: FreshnessLedger;
  run(
    toolName: string,
    args: Record<string, unknown>,
    overrides?: Partial<FsHarnessOptions> & { signal?: AbortSignal },
  ): Promise<ToolExecutionOutcome>;
}

/** Runs built-in tools through executeTool exactly as the server does, with their own registry and ledger. */
export function createFsHarness(options: FsHarnessOptions = {}): FsHarness {
  const registry = registerBuiltinTools(new ToolRegistry());
  const ledger = options.ledger ?? new InMemoryFreshnessLedger();
  return {
    ledger,
    run: (toolName, args, overrides = {}) => {
      const merged = { ...options, ...overrides };
      return executeTool(
        {
          toolName,
          arguments: args,
          userId: 'tester',
          chatId: merged.chatId ?? 'chat-1',
          workingDirectory: merged.workingDirectory,
          mode: merged.mode ?? (merged.workingDirectory === undefined ? 'chat' : 'agent'),
          ...(merged.settings === undefined ? {} : { settingsOverrides: { parameters: merged.settings } }),
          ...(overrides.signal === undefined ? {} : { signal: overrides.signal }),
        },
        { registry, services: { freshnessLedger: ledger } },
      );
    },
  };
}

/** The structured result of a successful outcome; fails the test with the error otherwise. */
export function resultOf<T>(outcome: ToolExecutionOutcome): T {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.result as T;
}

export function errorOf(outcome: ToolExecutionOutcome): { code: string; message: string } {
  if (outcome.ok) throw new Error(`expected an error, got ${JSON.stringify(outcome.result).slice(0, 300)}`);
  return outcome.error;
}
