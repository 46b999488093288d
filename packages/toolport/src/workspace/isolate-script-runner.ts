import type ivmModule from 'isolated-vm';
import { ToolportError, isToolportError } from '../core/errors.ts';
import { ISOLATE_BOOTSTRAP_SOURCE } from './isolate-bootstrap.ts';
import type { ScriptLogCollector } from './script-log-collector.ts';

/**
 * WS-1: one workspace script call in its own V8 isolate (isolated-vm): its own heap with a memory limit, a CPU limit
 * on every synchronous run (V8's execution timeout) and a wall-clock limit over the whole call (the isolate is
 * disposed when it passes, which stops a loop after an `await` too). The isolate gets nothing of the host: no
 * `process`, `require`, `import`, file system, environment or network — only `g` and `console`, whose calls arrive
 * here as JSON and are answered by `host`. Runs in the server's process: see docs/workspace-tools.md for the
 * measured trade-off against a child process.
 */

export const DEFAULT_SCRIPT_MEMORY_LIMIT_MB = 64;
export const MIN_SCRIPT_MEMORY_LIMIT_MB = 8;
export const MAX_SCRIPT_MEMORY_LIMIT_MB = 1024;

/** Answers a script's `g.*` call (`http`, `secret`, `nav`); throw a ToolportError to fail it with its message. */
export type ScriptHostHandler = (operation: string, payload: unknown) => Promise<unknown>;

export interface RunIsolatedScriptRequest {
  source: string;
  /** Workspace-relative name shown in stack traces and errors, e.g. `scripts/create-ticket.js`. */
  filename: string;
  /** The validated arguments (`g.tool.args`, frozen inside the isolate). */
  args: unknown;
  timeoutMs: number;
  memoryLimitMb: number;
  host: ScriptHostHandler;
  logs: ScriptLogCollector;
  signal?: AbortSignal;
}

type Ivm = typeof ivmModule;

// Loaded on the first call: `toolport mcp --workdir` answers its first tools/list without the native module.
let ivmLoaded: Promise<Ivm> | undefined;
function loadIvm(): Promise<Ivm> {
  ivmLoaded ??= import('isolated-vm').then((module) => module.default);
  return ivmLoaded;
}

interface PreparedIsolate {
  ivm: Ivm;
  isolate: ivmModule.Isolate;
  context: ivmModule.Context;
  install: ivmModule.Reference<(call: unknown, log: unknown, args: string) => unknown>;
}

const spareIsolates = new Map<number, Promise<PreparedIsolate>>();

/**
 * isolated-vm's advice for a catastrophic V8 failure (the isolate's state is unrecoverable): log it and end the
 * process, so the supervisor restarts a clean one (docs/workspace-tools.md).
 */
function onCatastrophicError(message: string): void {
  process.stderr.write(
    `toolport: a workspace script isolate failed catastrophically (${message}); exiting.\n`,
  );
  process.abort();
}

async function prepareIsolate(memoryLimitMb: number): Promise<PreparedIsolate> {
  const ivm = await loadIvm();
  const isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb, onCatastrophicError });
  try {
    const context = await isolate.createContext();
    const bootstrap = await isolate.compileScript(ISOLATE_BOOTSTRAP_SOURCE, {
      filename: 'toolport:bootstrap',
    });
    const install = (await bootstrap.run(context, {
      reference: true,
      timeout: 1000,
    })) as PreparedIsolate['install'];
    bootstrap.release();
    return { ivm, isolate, context, install };
  } catch (error) {
    if (!isolate.isDisposed) isolate.dispose();
    throw error;
  }
}

/**
 * A fresh isolate for every call — nothing a script leaves behind reaches the next one — taken from one prepared
 * spare per memory limit, refilled after each take, so a call does not wait for isolate creation (the "warm" path of
 * `npm run bench -- workspace`).
 */
async function takeIsolate(memoryLimitMb: number): Promise<PreparedIsolate> {
  const spare = spareIsolates.get(memoryLimitMb);
  spareIsolates.delete(memoryLimitMb);
  if (spare !== undefined) {
    const prepared = await spare.catch(() => undefined);
    if (prepared !== undefined && !prepared.isolate.isDisposed) return prepared;
  }
  return prepareIsolate(memoryLimitMb);
}

/**
 * Prepares the next spare after a call has finished, never during one: creating an isolate takes about a
 * millisecond of this thread, which would land inside the next call's awaits.
 */
function refillSpare(memoryLimitMb: number): void {
  if (spareIsolates.has(memoryLimitMb)) return;
  const next = prepareIsolate(memoryLimitMb);
  next.catch(() => spareIsolates.delete(memoryLimitMb));
  spareIsolates.set(memoryLimitMb, next);
}

/** Waits until a spare isolate for `memoryLimitMb` is prepared (benchmarks measure the warm path with it). */
export async function prepareSpareIsolate(memoryLimitMb: number): Promise<void> {
  let spare = spareIsolates.get(memoryLimitMb);
  if (spare === undefined) {
    spare = prepareIsolate(memoryLimitMb);
    spareIsolates.set(memoryLimitMb, spare);
  }
  await spare;
}

/** Disposes the prepared spares (tests and benchmarks call it to compare cold and warm starts). */
export function disposeSpareIsolates(): void {
  for (const spare of spareIsolates.values()) {
    void spare.then(
      (prepared) => prepared.isolate.isDisposed || prepared.isolate.dispose(),
      () => {},
    );
  }
  spareIsolates.clear();
}

type StopReason = 'timeout' | 'aborted';

/** Runs the script, then `main()`, and returns main's value parsed from its JSON. */
export async function runIsolatedScript(request: RunIsolatedScriptRequest): Promise<unknown> {
  const { timeoutMs, filename } = request;
  const deadline = performance.now() + timeoutMs;
  const remaining = (): number => Math.max(1, Math.ceil(deadline - performance.now()));
  const { ivm, isolate, context, install } = await takeIsolate(request.memoryLimitMb);

  let stopReason: StopReason | undefined;
  const stop = (reason: StopReason): void => {
    stopReason ??= reason;
    if (!isolate.isDisposed) isolate.dispose();
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = (): void => stop('aborted');
  request.signal?.addEventListener('abort', onAbort, { once: true });

  const hostCall = new ivm.Reference(async (operation: unknown, payloadJson: unknown): Promise<string> => {
    try {
      const payload: unknown = typeof payloadJson === 'string' ? JSON.parse(payloadJson) : undefined;
      const value = await request.host(String(operation), payload);
      return JSON.stringify({ ok: true, value: value ?? null });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return JSON.stringify({ ok: false, message, ...(isToolportError(error) ? { code: error.code } : {}) });
    }
  });
  const hostLog = new ivm.Reference((level: unknown, line: unknown): void => {
    request.logs.append(String(level), String(line));
  });

  try {
    // Synchronous where only our bootstrap runs or V8 only compiles (both short); the script's own code runs
    // asynchronously, so a script that loops never blocks this thread.
    const runMain = install.applySync(undefined, [hostCall, hostLog, JSON.stringify(request.args ?? {})], {
      result: { reference: true },
      timeout: remaining(),
    }) as ivmModule.Reference<(filename: string) => Promise<string>>;
    const script = isolate.compileScriptSync(request.source, { filename });
    await script.run(context, { timeout: remaining() });
    const answerJson = (await runMain.apply(undefined, [filename], {
      arguments: { copy: true },
      result: { promise: true, copy: true },
      timeout: remaining(),
    })) as string;
    return decodeAnswer(answerJson, request);
  } catch (error) {
    throw describeFailure(error, stopReason, isolate, request);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
    hostCall.release();
    hostLog.release();
    // After the answer is delivered: disposing and preparing the next spare are not part of this call's latency.
    setImmediate(() => {
      if (!isolate.isDisposed) isolate.dispose();
      refillSpare(request.memoryLimitMb);
    });
  }
}

interface MainFailure {
  serialization?: boolean;
  message?: string;
  stack?: string;
}

function decodeAnswer(answerJson: string, request: RunIsolatedScriptRequest): unknown {
  if (answerJson.startsWith('V')) return JSON.parse(answerJson.slice(1));
  const answer = JSON.parse(answerJson.slice(1)) as MainFailure;
  if (answer.serialization === true) throw new ToolportError('execution_failed', answer.message ?? '');
  throw scriptError(answer.message ?? 'The script failed.', answer.stack, request);
}

// V8's own refusals of one huge allocation (a 1 GB ArrayBuffer, a string past its maximum): the heap limit in effect.
const ALLOCATION_REFUSED = /^(Array buffer allocation failed|Invalid string length)/;

/** The script's own message with the line of the script it was thrown at (from the isolate's stack trace). */
function scriptError(
  rawMessage: string,
  stack: string | undefined,
  request: RunIsolatedScriptRequest,
): ToolportError {
  const { filename } = request;
  const message = ALLOCATION_REFUSED.test(rawMessage)
    ? `${rawMessage}: the allocation is past the memory limit of ${request.memoryLimitMb} MB (setting memoryLimitMb)`
    : rawMessage;
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const frame = stack === undefined ? null : new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(stack);
  if (frame === null) {
    return new ToolportError('execution_failed', `The script failed: ${message}`, {
      details: { file: filename },
    });
  }
  const line = Number(frame[1]);
  const column = Number(frame[2]);
  return new ToolportError(
    'execution_failed',
    `The script failed: ${message} (${filename}:${line}:${column})`,
    {
      details: { file: filename, line, column },
    },
  );
}

function describeFailure(
  error: unknown,
  stopReason: StopReason | undefined,
  isolate: ivmModule.Isolate,
  request: RunIsolatedScriptRequest,
): ToolportError {
  if (isToolportError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (stopReason === 'timeout' || /Script execution timed out/i.test(message)) {
    return new ToolportError(
      'timeout',
      `The script ${request.filename} did not finish within its time limit of ${request.timeoutMs / 1000} s and was stopped.`,
      { details: { timeoutMs: request.timeoutMs } },
    );
  }
  if (stopReason === 'aborted')
    return new ToolportError('aborted', 'The script was cancelled by the caller.');
  if (/memory limit/i.test(message) || (isolate.isDisposed && /disposed/i.test(message))) {
    return new ToolportError(
      'execution_failed',
      `The script ${request.filename} exceeded its memory limit of ${request.memoryLimitMb} MB and was stopped ` +
        '(setting memoryLimitMb).',
      { details: { memoryLimitMb: request.memoryLimitMb } },
    );
  }
  // A syntax error or a throw at the top level of the script.
  const stack = error instanceof Error ? error.stack : undefined;
  return scriptError(message, stack, request);
}
