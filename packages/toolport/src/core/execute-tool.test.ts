import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeFivePropertyTool, makeSettingsTool } from '../../test/support/test-tools.ts';
import { ToolportError } from './errors.ts';
import {
  ToolCancelledReason,
  ToolTimeoutReason,
  executeTool,
  type ExecuteToolRequest,
  type ToolExecutionFailure,
  type ToolExecutionOutcome,
} from './execute-tool.ts';
import { InMemoryExecutionRecorder } from './execution-recorder.ts';
import { ToolRegistry } from './tool-registry.ts';
import { defineTool, type RegisteredTool, type ToolContext } from './tool-types.ts';

function registryWith(...tools: RegisteredTool[]): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  return registry;
}

function expectFailure(outcome: ToolExecutionOutcome): ToolExecutionFailure {
  if (outcome.ok) throw new Error(`expected a failure, got ${outcome.output}`);
  return outcome;
}

/** A tool that waits until its signal aborts (or forever), recording what it saw. */
function makeWaitingTool(seen: { reason?: unknown; context?: ToolContext }): RegisteredTool {
  return defineTool<{ name: string }>({
    ...makeFivePropertyTool(),
    definition: { ...makeFivePropertyTool().definition, name: 'waiter' },
    execute: (_args, context) =>
      new Promise((_, reject) => {
        seen.context = context;
        context.signal.addEventListener('abort', () => {
          seen.reason = context.signal.reason;
          reject(new Error('stopped'));
        });
      }),
  });
}

const base = (overrides: Partial<ExecuteToolRequest> = {}): ExecuteToolRequest => ({
  toolName: 'five_props',
  arguments: { name: 'x' },
  userId: 'user-1',
  chatId: 'chat-1',
  ...overrides,
});

afterEach(() => vi.useRealTimers());

describe('CORE-6 executeTool', () => {
  it('returns the structured result and the serialized output', async () => {
    const outcome = await executeTool(base(), { registry: registryWith(makeFivePropertyTool()) });
    expect(outcome).toMatchObject({
      ok: true,
      toolName: 'five_props',
      result: { ok: true, name: 'x' },
      truncated: false,
    });
    expect(outcome.output).toBe('{"ok":true,"name":"x"}');
    expect(outcome.callId).toMatch(/^call_[0-9a-f]{12}_\d+$/);
  });

  it('not_found for an unknown tool', async () => {
    const failure = expectFailure(
      await executeTool(base({ toolName: 'nope' }), { registry: new ToolRegistry() }),
    );
    expect(failure.error.code).toBe('not_found');
    expect(failure.output).toBe(
      JSON.stringify({ error: { code: 'not_found', message: failure.error.message } }),
    );
  });

  it('disabled for a tool disabled by default, and runs when an override enables it', async () => {
    const registry = registryWith({
      ...makeFivePropertyTool(),
      settings: { ...makeFivePropertyTool().settings, enabledByDefault: false },
    });
    expect(expectFailure(await executeTool(base(), { registry })).error.code).toBe('disabled');
    expect((await executeTool(base({ settingsOverrides: { enabled: true } }), { registry })).ok).toBe(true);
  });

  it('disabled when the user saved it disabled', async () => {
    const outcome = await executeTool(base({ savedSettings: { enabled: false } }), {
      registry: registryWith(makeFivePropertyTool()),
    });
    expect(expectFailure(outcome).error.code).toBe('disabled');
  });

  it('disabled for an agent whose selection omits the tool; permission_denied when the agent denies it', async () => {
    const registry = registryWith(makeFivePropertyTool());
    const notSelected = await executeTool(base({ agentPermissions: { allowedTools: ['other'] } }), {
      registry,
    });
    expect(expectFailure(notSelected).error.code).toBe('disabled');
    const denied = await executeTool(base({ agentPermissions: { deniedTools: ['five_props'] } }), {
      registry,
    });
    expect(expectFailure(denied).error.code).toBe('permission_denied');
  });

  it('invalid_settings for an invalid override, naming the parameter', async () => {
    const outcome = await executeTool(base({ settingsOverrides: { parameters: { timeoutSeconds: 2 } } }), {
      registry: registryWith(makeFivePropertyTool()),
    });
    const failure = expectFailure(outcome);
    expect(failure.error.code).toBe('invalid_settings');
    expect(failure.error.details).toEqual({ parameter: 'timeoutSeconds' });
  });

  it('runs with defaults when the stored settings are corrupt', async () => {
    const registry = registryWith(makeSettingsTool());
    const outcome = await executeTool(
      base({
        toolName: 'settings_tool',
        arguments: {},
        savedSettings: { parameters: { maxResults: 'lots', quality: 9 } },
      }),
      { registry },
    );
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.result).toMatchObject({ settings: { maxResults: 100, quality: 'auto' } });
  });

  it('validation_failed naming the argument; the executor never runs', async () => {
    const execute = vi.fn(async () => 'ran');
    const registry = registryWith(makeFivePropertyTool(execute));
    const failure = expectFailure(
      await executeTool(base({ arguments: { name: 'x', enabled: 'true' } }), { registry }),
    );
    expect(failure.error).toMatchObject({
      code: 'validation_failed',
      details: { argument: 'enabled', expected: 'boolean', received: 'string "true"' },
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it('parses raw JSON argument text from a model, with empty text as {}', async () => {
    const registry = registryWith(makeFivePropertyTool());
    expect((await executeTool(base({ arguments: '{"name":"raw","count":null}' }), { registry })).ok).toBe(
      true,
    );
    expect(expectFailure(await executeTool(base({ arguments: '{"name":' }), { registry })).error.code).toBe(
      'validation_failed',
    );
    expect(expectFailure(await executeTool(base({ arguments: '' }), { registry })).error.message).toContain(
      '`name`',
    );
  });

  it('timeout when the tool outlives timeoutSeconds, with the reason on the signal', async () => {
    vi.useFakeTimers();
    const seen: { reason?: unknown } = {};
    const pending = executeTool(
      base({ toolName: 'waiter', settingsOverrides: { parameters: { timeoutSeconds: 5 } } }),
      {
        registry: registryWith(makeWaitingTool(seen)),
      },
    );
    await vi.advanceTimersByTimeAsync(4_999);
    expect(seen.reason).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    const failure = expectFailure(await pending);
    expect(failure.error.code).toBe('timeout');
    expect(failure.error.details).toEqual({ timeoutMs: 5_000 });
    expect(seen.reason).toBeInstanceOf(ToolTimeoutReason);
  });

  it('uses the 30 s default budget for a tool without timeoutSeconds', async () => {
    vi.useFakeTimers();
    const seen: { reason?: unknown } = {};
    const waiter = makeWaitingTool(seen);
    const tool = { ...waiter, settings: { ...waiter.settings, parameterDescriptors: [] } };
    const pending = executeTool(base({ toolName: 'waiter' }), { registry: registryWith(tool) });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(seen.reason).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(expectFailure(await pending).error.code).toBe('timeout');
  });

  it('aborted (not timeout) when the caller cancels, and the tool sees the cancel reason', async () => {
    const seen: { reason?: unknown } = {};
    const controller = new AbortController();
    const pending = executeTool(base({ toolName: 'waiter', signal: controller.signal }), {
      registry: registryWith(makeWaitingTool(seen)),
    });
    await vi.waitFor(() => expect(seen).toHaveProperty('context'));
    controller.abort(new Error('user pressed stop'));
    const failure = expectFailure(await pending);
    expect(failure.error.code).toBe('aborted');
    expect(seen.reason).toBeInstanceOf(ToolCancelledReason);
  });

  it('aborted without running when the caller already cancelled', async () => {
    const execute = vi.fn(async () => 'ran');
    const controller = new AbortController();
    controller.abort();
    const outcome = await executeTool(base({ signal: controller.signal }), {
      registry: registryWith(makeFivePropertyTool(execute)),
    });
    expect(expectFailure(outcome).error.code).toBe('aborted');
    expect(execute).not.toHaveBeenCalled();
  });

  it('returns aborted even when the tool ignores its signal', async () => {
    const controller = new AbortController();
    const registry = registryWith(makeFivePropertyTool(() => new Promise(() => {})));
    const pending = executeTool(base({ signal: controller.signal }), { registry });
    setTimeout(() => controller.abort(), 5);
    expect(expectFailure(await pending).error.code).toBe('aborted');
  });

  it('execution_failed carries the thrown message; a ToolportError keeps its own code', async () => {
    const failing = registryWith(makeFivePropertyTool(async () => Promise.reject(new Error('disk on fire'))));
    expect(expectFailure(await executeTool(base(), { registry: failing })).error).toEqual({
      code: 'execution_failed',
      message: 'disk on fire',
    });
    const refusing = registryWith(
      makeFivePropertyTool(async () => {
        throw new ToolportError('permission_denied', '/etc is outside the allowed paths');
      }),
    );
    expect(expectFailure(await executeTool(base(), { registry: refusing })).error.code).toBe(
      'permission_denied',
    );
  });

  it('gives the tool its context: user, chat, mode, working directory, merged settings', async () => {
    let context: ToolContext | undefined;
    const registry = registryWith(
      makeFivePropertyTool(async (_args, received) => {
        context = received;
        return null;
      }),
    );
    await executeTool(
      base({
        workingDirectory: '/srv/w',
        mode: 'agent',
        agentId: 'a-1',
        settingsOverrides: { parameters: { timeoutSeconds: 9 } },
      }),
      { registry },
    );
    expect(context).toMatchObject({
      userId: 'user-1',
      chatId: 'chat-1',
      agentId: 'a-1',
      mode: 'agent',
      workingDirectory: '/srv/w',
      settings: { enabled: true, parameters: { timeoutSeconds: 9 } },
    });
  });

  it('forwards progress and partial results', async () => {
    const registry = registryWith(
      makeFivePropertyTool(async (_args, context) => {
        context.reportProgress({ progress: 1, total: 2, message: 'half' });
        context.emitPartialResult({ image: 1 });
        return 'done';
      }),
    );
    const progress: unknown[] = [];
    const partials: unknown[] = [];
    await executeTool(
      base({ onProgress: (p) => progress.push(p), onPartialResult: (p) => partials.push(p) }),
      { registry },
    );
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'half' }]);
    expect(partials).toEqual([{ image: 1 }]);
  });

  it('caps the serialized output and keeps the structured result whole', async () => {
    const big = 'z'.repeat(500);
    const registry = registryWith(makeFivePropertyTool(async () => ({ big })));
    const outcome = await executeTool(base(), { registry, maxResultCharacters: 50 });
    expect(outcome.ok && outcome.truncated).toBe(true);
    expect(outcome.output).toContain('result truncated');
    expect(outcome.ok && outcome.result).toEqual({ big });
  });

  it('redacts secret values from the output and error messages', async () => {
    const secrets = {
      getSecret: async () => 'sk-live-123456',
      listSecretValues: async () => ['sk-live-123456'],
    };
    const echo = registryWith(makeFivePropertyTool(async () => ({ echoed: 'token=sk-live-123456' })));
    const outcome = await executeTool(base(), { registry: echo, services: { secrets } });
    expect(outcome.output).toBe('{"echoed":"token=***"}');
    const failing = registryWith(
      makeFivePropertyTool(async () => Promise.reject(new Error('bad key sk-live-123456'))),
    );
    expect(
      expectFailure(await executeTool(base(), { registry: failing, services: { secrets } })).error.message,
    ).toBe('bad key ***');
  });

  it('redacts secret values from log lines and progress messages, and drops both after the call', async () => {
    const secrets = {
      getSecret: async () => 'sk-live-123456',
      listSecretValues: async () => ['sk-live-123456'],
    };
    let late: (() => void) | undefined;
    const chatty = registryWith(
      makeFivePropertyTool(async (_args, context) => {
        context.log('warning', 'using key sk-live-123456');
        context.reportProgress({ progress: 1, message: 'sent sk-live-123456' });
        late = () => {
          context.log('info', 'after the end');
          context.reportProgress({ progress: 2 });
        };
        return 'ok';
      }),
    );
    const logs: unknown[] = [];
    const progress: unknown[] = [];
    await executeTool(
      { ...base(), onLog: (entry) => logs.push(entry), onProgress: (update) => progress.push(update) },
      { registry: chatty, services: { secrets } },
    );
    late?.();
    expect(logs).toEqual([{ level: 'warning', message: 'using key ***' }]);
    expect(progress).toEqual([{ progress: 1, message: 'sent ***' }]);
  });

  it('redacts secret values from the structured result and from partial results too', async () => {
    const secrets = { getSecret: async () => undefined, listSecretValues: async () => ['sk-live-123456'] };
    const registry = registryWith(
      makeFivePropertyTool(async (_args, context) => {
        context.emitPartialResult({ step: 'key sk-live-123456' });
        return { nested: [{ token: 'sk-live-123456' }], ['sk-live-123456']: 1 };
      }),
    );
    const partials: unknown[] = [];
    const outcome = await executeTool(base({ onPartialResult: (partial) => partials.push(partial) }), {
      registry,
      services: { secrets },
    });
    expect(outcome.ok && outcome.result).toEqual({ nested: [{ token: '***' }], '***': 1 });
    expect(outcome.output).not.toContain('sk-live-123456');
    expect(partials).toEqual([{ step: 'key ***' }]);
  });

  it('redacts encoded forms in partial results, progress, error details and the tool’s log lines', async () => {
    const secret = 'sk-live-123456';
    const basic = `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`;
    const secrets = { getSecret: async () => undefined, listSecretValues: async () => [secret] };
    const logged: string[] = [];
    const record = (object: Record<string, unknown>, message?: string) =>
      logged.push(`${JSON.stringify(object)} ${message ?? ''}`);
    const logger = { debug: record, info: record, warn: record, error: record };
    const registry = registryWith(
      makeFivePropertyTool(async (_args, context) => {
        context.logger.info({ header: basic }, `sending ${encodeURIComponent(secret)}`);
        context.reportProgress({ progress: 1, message: `auth ${basic}` });
        context.emitPartialResult({ header: basic });
        throw new ToolportError('execution_failed', `rejected ${basic}`, { details: { sent: basic } });
      }),
    );
    const progress: unknown[] = [];
    const partials: unknown[] = [];
    const outcome = await executeTool(
      base({ onProgress: (p) => progress.push(p), onPartialResult: (p) => partials.push(p) }),
      { registry, services: { secrets }, logger },
    );
    const stable = Buffer.from(`user:${secret}`).toString('base64').slice(8, -4);
    for (const surface of [logged, progress, partials, expectFailure(outcome).error]) {
      expect(JSON.stringify(surface)).toContain('***');
      expect(JSON.stringify(surface)).not.toContain(stable);
      expect(JSON.stringify(surface)).not.toContain(secret);
    }
  });

  it('withholds the result when the secrets needed for redaction cannot be loaded', async () => {
    const secrets = {
      getSecret: async () => undefined,
      listSecretValues: async (): Promise<string[]> => Promise.reject(new Error('database down')),
    };
    const execute = vi.fn(async () => 'sk-live-123456');
    const outcome = await executeTool(base(), {
      registry: registryWith(makeFivePropertyTool(execute)),
      services: { secrets },
    });
    expect(expectFailure(outcome).error.code).toBe('internal_error');
    expect(execute).not.toHaveBeenCalled();
  });

  it('records every execution with tool, user, chat, duration, outcome and result size', async () => {
    const recorder = new InMemoryExecutionRecorder();
    const registry = registryWith(makeFivePropertyTool());
    await executeTool(base(), { registry, recorder });
    await executeTool(base({ arguments: {} }), { registry, recorder });
    await executeTool(base({ toolName: 'nope', chatId: 'chat-2' }), { registry, recorder });
    const records = recorder.query();
    expect(records.map((record) => record.outcome)).toEqual(['not_found', 'validation_failed', 'ok']);
    expect(records[2]).toMatchObject({
      toolName: 'five_props',
      userId: 'user-1',
      chatId: 'chat-1',
      resultSize: 22,
    });
    expect(records[2]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(recorder.query({ chatId: 'chat-2' })).toHaveLength(1);
    expect(recorder.query({ outcome: 'ok', userId: 'user-1' })).toHaveLength(1);
    expect(recorder.query({ limit: 2 })).toHaveLength(2);
  });
});
