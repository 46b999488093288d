import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type CodeToolSandbox, mathTool } from './code-tool-harness.ts';

// The real bin against the built dist (the root `npm test` builds first), on the Node running the tests: CI runs
// this file on Node 24 and Node 22, where the loader must work without Node's type stripping.
const bin = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));
const execute = promisify(execFile);

const MATH = mathTool();

let sandbox: CodeToolSandbox;
beforeEach(() => {
  sandbox = createSandbox('toolport-code-cli-');
});
afterEach(() => sandbox.remove());

async function toolport(
  cwd: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [bin, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: sandbox.root, XDG_CONFIG_HOME: sandbox.xdg },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('CODE-1 the real CLI with code tools', () => {
  it('a newcomer drops math.ts into .toolport/tools, lists math_add/math_multiply and runs them', async () => {
    sandbox.write('project/.toolport/tools/math.ts', MATH);
    const listed = await toolport(sandbox.project, 'tools', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^math_add\s+math_add\s+custom\s+enabled\s+yes$/m);
    expect(listed.stdout).toMatch(/^math_multiply\s/m);
    expect(listed.stdout).toMatch(/^read_file\s/m);
    expect(listed.stdout).not.toContain('Load errors');

    const added = await toolport(sandbox.project, 'tools', 'run', 'math_add', '--args', '{"a":2,"b":3}');
    expect(added).toMatchObject({ code: 0, stdout: '5\n' });
    const multiplied = await toolport(
      sandbox.project,
      'tools',
      'run',
      'math_multiply',
      '--args',
      '{"a":2,"b":3}',
    );
    expect(multiplied).toMatchObject({ code: 0, stdout: '6\n' });
    const invalid = await toolport(
      sandbox.project,
      'tools',
      'run',
      'math_add',
      '--args',
      '{"a":"two","b":3}',
    );
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ error: { code: 'validation_failed' } });
  });

  it('one broken file never hides the others: load errors in a section after the table and in --json', async () => {
    sandbox.write('project/.toolport/tools/math.ts', MATH);
    const broken = sandbox.write('project/.toolport/tools/broken.ts', 'export default {\n');
    const listed = await toolport(sandbox.project, 'tools', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^math_add\s/m);
    const section = listed.stdout.slice(listed.stdout.indexOf('\nLoad errors (1):\n'));
    expect(section).toContain(`  ${broken}: could not be compiled`);
    expect(listed.stdout.indexOf('math_add')).toBeLessThan(listed.stdout.indexOf('Load errors'));

    const json = await toolport(sandbox.project, 'tools', 'list', '--json');
    const parsed = JSON.parse(json.stdout) as {
      tools: { name: string; source: string; file?: string }[];
      loadErrors: { file: string; reason: string }[];
    };
    expect(parsed.tools.find((tool) => tool.name === 'math_add')).toMatchObject({
      source: 'code',
      file: join(sandbox.project, '.toolport/tools/math.ts'),
    });
    expect(parsed.loadErrors).toEqual([
      { file: broken, reason: expect.stringContaining('could not be compiled') },
    ]);

    const ran = await toolport(sandbox.project, 'tools', 'run', 'math_add', '--args', '{"a":1,"b":1}');
    expect(ran).toMatchObject({ code: 0, stdout: '2\n' });
    expect(ran.stderr).toContain(`code tool not loaded: ${broken}`);
  });

  it('--workdir picks the project; the global folder loads too; a shadowed built-in is noted', async () => {
    sandbox.write('project/.toolport/tools/math.ts', MATH);
    const bash = sandbox.write(
      'project/.toolport/tools/bash.ts',
      `import { tool } from "toolport/plugin"
export default tool({ description: "Restricted bash wrapper", args: { command: tool.schema.string() }, async execute(args) { return \`blocked: \${args.command}\` } })`,
    );
    sandbox.write(
      'xdg/toolport/tools/hello.js',
      'export default { description: "Say hello", args: {}, execute: () => "hello from the global folder" }',
    );
    const listed = await toolport(sandbox.root, 'tools', 'list', '--workdir', sandbox.project);
    expect(listed.stdout).toMatch(/^math_add\s/m);
    expect(listed.stdout).toMatch(/^hello\s/m);
    expect(listed.stdout).toMatch(/^bash\s+bash\s+custom\s+enabled\s+yes$/m);
    expect(listed.stdout).toContain(`Shadowed:\n  bash (built-in) by ${bash}\n`);

    const blocked = await toolport(sandbox.project, 'tools', 'run', 'bash', '--args', '{"command":"ls"}');
    expect(blocked).toMatchObject({ code: 0, stdout: '"blocked: ls"\n' });
    const hello = await toolport(sandbox.root, 'tools', 'run', 'hello');
    expect(JSON.parse(hello.stdout)).toBe('hello from the global folder');
  });

  it('context.log lines go to stderr; stdout keeps only the result', async () => {
    sandbox.write(
      'project/.toolport/tools/noisy.ts',
      'export default { description: "n", args: {}, execute(_a, context) { context.log("warn", "disk almost full"); return "ok" } }',
    );
    const ran = await toolport(sandbox.project, 'tools', 'run', 'noisy');
    expect(ran).toMatchObject({ code: 0, stdout: '"ok"\n' });
    expect(ran.stderr).toMatch(/toolport: warn disk almost full \{"tool":"noisy"/);
  });

  it('an unmodified opencode tool file loads from .opencode/tool', async () => {
    sandbox.write(
      'project/.opencode/tool/database.ts',
      `import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Query the project database",
  args: {
    query: tool.schema.string().describe("SQL query to execute"),
  },
  async execute(args) {
    // Your database logic here
    return \`Executed query: \${args.query}\`
  },
})
`,
    );
    const ran = await toolport(sandbox.project, 'tools', 'run', 'database', '--args', '{"query":"select 1"}');
    expect(ran).toMatchObject({ code: 0 });
    expect(JSON.parse(ran.stdout)).toBe('Executed query: select 1');
  });
});

describe('README "Write a tool in 2 minutes"', () => {
  it('the math.ts of the README loads as written and its tools run', async () => {
    const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Write a tool in 2 minutes'));
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toContain('.toolport/tools/math.ts');
    sandbox.write('project/.toolport/tools/math.ts', example!);
    const listed = await toolport(sandbox.project, 'tools', 'list', '--json');
    const parsed = JSON.parse(listed.stdout) as { tools: { name: string }[]; loadErrors: unknown[] };
    expect(parsed.loadErrors).toEqual([]);
    expect(parsed.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['math_add', 'math_multiply']),
    );
    expect(
      await toolport(sandbox.project, 'tools', 'run', 'math_add', '--args', '{"a":2,"b":3}'),
    ).toMatchObject({
      code: 0,
      stdout: '5\n',
    });
  });
});
