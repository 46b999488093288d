import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolLogEntry, ToolProgress } from '../../src/core/tool-types.ts';
import { inspectProviderTools } from '../../src/providers/inspect-provider-tools.ts';
import { PROVIDER_NAMES } from '../../src/providers/provider-adapter.ts';
import { readPids, survivorsAfterGrace, waitForLines } from '../shell/process-probe.ts';
import {
  createSandbox,
  registryWith,
  run,
  sandboxToolSet,
  type CodeToolSandbox,
} from './code-tool-harness.ts';

let sandbox: CodeToolSandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.remove());

async function load(file: string, text: string) {
  sandbox.write(file, text);
  const snapshot = await sandboxToolSet(sandbox).refresh();
  expect(snapshot.loadErrors).toEqual([]);
  return registryWith(snapshot);
}

describe('CODE-1 context', () => {
  it('gives agent, sessionID, messageID, directory and worktree (the git root above the directory)', async () => {
    mkdirSync(join(sandbox.project, '.git'));
    const nested = join(sandbox.project, 'packages', 'app');
    mkdirSync(nested, { recursive: true });
    const registry = await load(
      'project/.toolport/tools/info.ts',
      `import { tool } from "toolport/plugin"
export default tool({
  description: "Get project information",
  args: {},
  async execute(args, context) {
    const { agent, sessionID, messageID, directory, worktree } = context
    return { agent, sessionID, messageID, directory, worktree, aborted: context.abort.aborted }
  },
})`,
    );
    const withChat = await run(
      registry,
      'info',
      {},
      {
        chatId: 'chat-1',
        agentId: 'agent-7',
        callId: 'call-9',
        workingDirectory: nested,
        mode: 'agent',
      },
    );
    expect(withChat).toMatchObject({
      ok: true,
      result: {
        agent: 'agent-7',
        sessionID: 'chat-1',
        messageID: 'call-9',
        directory: nested,
        worktree: sandbox.project,
        aborted: false,
      },
    });
    // Without a working directory: the workspace the tool was loaded for.
    const bare = await run(registry, 'info', {}, { callId: 'c2' });
    expect(bare).toMatchObject({
      result: { agent: 'default', directory: sandbox.project, worktree: sandbox.project },
    });
  });

  it('context.run runs a real program; a non-zero exit is a result, not an error', async () => {
    const registry = await load(
      'project/.toolport/tools/py.ts',
      `import { tool } from "toolport/plugin"
export default tool({
  description: "Run node",
  args: { code: tool.schema.string() },
  async execute(args, context) {
    return await context.run(process.execPath, ["-e", args.code], { cwd: "." })
  },
})`,
    );
    const ok = await run(registry, 'py', { code: 'console.log(process.cwd()); console.error("warn")' });
    expect(ok).toMatchObject({
      ok: true,
      result: { stdout: `${sandbox.project}\n`, stderr: 'warn\n', exitCode: 0, termination: 'exited' },
    });
    const failing = await run(registry, 'py', { code: 'process.stdout.write("partial"); process.exit(3)' });
    expect(failing).toMatchObject({
      ok: true,
      result: { stdout: 'partial', exitCode: 3, termination: 'exited' },
    });
    // The shell tools' minimal environment: the server's variables do not leak.
    process.env.TOOLPORT_TEST_SECRET_VARIABLE = 'do-not-leak';
    try {
      const env = await run(registry, 'py', {
        code: 'console.log(process.env.TOOLPORT_TEST_SECRET_VARIABLE ?? "absent")',
      });
      expect(env).toMatchObject({ result: { stdout: 'absent\n' } });
    } finally {
      delete process.env.TOOLPORT_TEST_SECRET_VARIABLE;
    }
  });

  it('context.run: cancelling the call kills the whole process tree and reports aborted', async () => {
    const pidFile = join(sandbox.root, 'pids');
    const registry = await load(
      'project/.toolport/tools/slow.ts',
      `import { tool } from "toolport/plugin"
export default tool({
  description: "slow",
  args: {},
  async execute(_args, context) {
    return await context.run("sh", ["-c", "sleep 30 & echo $! >> ${pidFile}; echo $$ >> ${pidFile}; wait"])
  },
})`,
    );
    const controller = new AbortController();
    const outcome = run(registry, 'slow', {}, { signal: controller.signal });
    await waitForLines(pidFile, 2);
    controller.abort(new Error('user cancel'));
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'aborted' } });
    expect(await survivorsAfterGrace(readPids(pidFile))).toEqual([]);
  });

  it('context.run of a missing program rejects with a clear execution_failed', async () => {
    const registry = await load(
      'project/.toolport/tools/missing.ts',
      `export default { description: "m", args: {}, execute: (_a, context) => context.run("no-such-program-xyz") }`,
    );
    expect(await run(registry, 'missing', {})).toMatchObject({
      ok: false,
      error: {
        code: 'execution_failed',
        message: expect.stringContaining('could not start "no-such-program-xyz"'),
      },
    });
  });

  it('context.progress reaches the progress hook and context.log the logger and the log hook (MCP-2)', async () => {
    const registry = await load(
      'project/.toolport/tools/steps.ts',
      `export default { description: "s", args: {}, execute(_a, context) {
  context.progress(1, 2, "half")
  context.progress(2)
  context.log("warn", "careful")
  return "done"
} }`,
    );
    const progress: ToolProgress[] = [];
    const logged: unknown[] = [];
    const { executeTool } = await import('../../src/core/execute-tool.ts');
    const noop = (): void => {};
    const logEntries: ToolLogEntry[] = [];
    const outcome = await executeTool(
      {
        toolName: 'steps',
        arguments: {},
        userId: 'u',
        onProgress: (item) => progress.push(item),
        onLog: (entry) => logEntries.push(entry),
      },
      {
        registry,
        logger: {
          debug: noop,
          info: noop,
          error: noop,
          warn: (object, message) => logged.push({ object, message }),
        },
      },
    );
    expect(outcome).toMatchObject({ ok: true, result: 'done' });
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'half' }, { progress: 2 }]);
    expect(logged).toEqual([{ object: { tool: 'steps', callId: outcome.callId }, message: 'careful' }]);
    // opencode's `warn` is MCP's `warning` on the way to an MCP client's notifications/message.
    expect(logEntries).toEqual([{ level: 'warning', message: 'careful' }]);
  });
});

describe('CODE-1 schemas and arguments', () => {
  const ARGS_TOOL = `import { tool } from "toolport/plugin"
export default tool({
  description: "Search the notes",
  args: {
    query: tool.schema.string().describe("Words to look for").refine((value) => value.trim() !== "", "must not be blank"),
    limit: tool.schema.number().int().min(1).max(50).default(10).describe("How many results"),
    tag: tool.schema.string().transform((value) => value.toUpperCase()).optional(),
  },
  async execute(args) { return args },
})`;

  it('zod args become JSON Schema on the input side, with .describe() texts', async () => {
    const registry = await load('project/.toolport/tools/search.ts', ARGS_TOOL);
    expect(registry.get('search')!.definition.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'How many results' },
        tag: { type: 'string' },
      },
      required: ['query'],
      additionalProperties: false,
    });
  });

  it('zod validates at execution: defaults and transforms apply, refinements refuse naming the argument', async () => {
    const registry = await load('project/.toolport/tools/search.ts', ARGS_TOOL);
    expect(await run(registry, 'search', { query: 'x', tag: 'work' })).toMatchObject({
      ok: true,
      result: { query: 'x', limit: 10, tag: 'WORK' },
    });
    expect(await run(registry, 'search', { query: '   ' })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', message: 'Invalid argument `query`: must not be blank.' },
    });
    expect(await run(registry, 'search', { query: 'x', limit: 99 })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', message: expect.stringContaining('`limit`') },
    });
    expect(await run(registry, 'search', { query: 'x', extra: 1 })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', message: expect.stringContaining('`extra`') },
    });
  });

  it('is sent strict where the derivation allows, non-strict with the reason otherwise; descriptions reach every provider', async () => {
    sandbox.write('project/.toolport/tools/search.ts', ARGS_TOOL);
    sandbox.write(
      'project/.toolport/tools/either.ts',
      `import { z } from "zod"
export default { description: "Either", args: { value: z.union([z.string(), z.object({ n: z.number() })]).describe("A text or a number box") }, execute: () => 1 }`,
    );
    const snapshot = await sandboxToolSet(sandbox).refresh();
    const definitions = snapshot.entries.map((entry) => entry.tool.definition);
    const openai = inspectProviderTools('openai', definitions);
    expect(openai.find((tool) => tool.name === 'search')).toMatchObject({ strict: true });
    expect(openai.find((tool) => tool.name === 'either')).toMatchObject({
      strict: false,
      nonStrictReason: expect.stringContaining('anyOf'),
    });
    for (const provider of PROVIDER_NAMES) {
      const wire = JSON.stringify(inspectProviderTools(provider, definitions).map((tool) => tool.wire));
      expect(wire, provider).toContain('Words to look for');
      expect(wire, provider).toContain('How many results');
      expect(wire, provider).toContain('A text or a number box');
    }
  });
});

describe('CODE-1 opencode compatibility', () => {
  it('an unmodified opencode tool file in .opencode/tool loads without @opencode-ai/plugin installed', async () => {
    mkdirSync(join(sandbox.project, '.git'));
    const registry = await load(
      'project/.opencode/tool/project.ts',
      `import { tool } from "@opencode-ai/plugin"
import path from "path"

export default tool({
  description: "Get project information",
  args: {
    file: tool.schema.string().describe("A file name"),
  },
  async execute(args, context) {
    const { sessionID, directory, worktree } = context
    return \`Session: \${sessionID}, File: \${path.join(worktree, args.file)}, Directory: \${directory}\`
  },
})`,
    );
    const outcome = await run(registry, 'project', { file: 'a.txt' }, { chatId: 's-1' });
    expect(outcome).toMatchObject({
      ok: true,
      result: `Session: s-1, File: ${join(sandbox.project, 'a.txt')}, Directory: ${sandbox.project}`,
    });
  });

  it('Bun.$ is an execution error naming the API and suggesting context.run', async () => {
    const registry = await load(
      'project/.opencode/tools/add.ts',
      `import { tool } from "@opencode-ai/plugin"
import path from "path"
export default tool({
  description: "Add two numbers using Python",
  args: { a: tool.schema.number(), b: tool.schema.number() },
  async execute(args, context) {
    const script = path.join(context.worktree, ".opencode/tools/add.py")
    const result = await Bun.$\`python3 \${script} \${args.a} \${args.b}\`.text()
    return result.trim()
  },
})`,
    );
    expect(await run(registry, 'add', { a: 1, b: 2 })).toMatchObject({
      ok: false,
      error: {
        code: 'execution_failed',
        message: expect.stringMatching(/Bun\.\$ is not available.*context\.run/),
      },
    });
    expect('Bun' in globalThis).toBe(false);
  });

  it('Bun.file at import time and `import … from "bun"` are load errors naming the API', async () => {
    const atImport = sandbox.write(
      'project/.toolport/tools/reads.ts',
      'const text = await Bun.file("x").text();\nexport default { description: "d", args: {}, execute: () => text }\n',
    );
    const bunModule = sandbox.write(
      'project/.toolport/tools/shell.ts',
      'import { $ } from "bun";\nexport default { description: "d", args: {}, execute: () => $`ls` }\n',
    );
    const snapshot = await sandboxToolSet(sandbox).refresh();
    const byFile = new Map(snapshot.loadErrors.map((error) => [error.file, error.reason]));
    expect(byFile.get(atImport)).toMatch(/Bun\.file is not available.*node:fs/);
    expect(byFile.get(bunModule)).toMatch(/Bun module "bun" is not available.*context\.run/);
  });

  it('a tool reading its own folder with node:fs works (what replaces Bun.file)', async () => {
    sandbox.write('project/.toolport/tools/data.json', '{"greeting":"hi"}');
    const registry = await load(
      'project/.toolport/tools/readjson.ts',
      `import { readFile } from "node:fs/promises"
import { join } from "node:path"
export default { description: "r", args: {}, async execute() { return JSON.parse(await readFile(join(import.meta.dirname, "data.json"), "utf8")) } }`,
    );
    expect(await run(registry, 'readjson', {})).toMatchObject({ ok: true, result: { greeting: 'hi' } });
    expect(readFileSync(join(sandbox.project, '.toolport/tools/data.json'), 'utf8')).toContain('hi');
  });
});
