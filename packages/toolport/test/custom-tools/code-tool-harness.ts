import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { executeTool, type ExecuteToolRequest } from '../../src/core/execute-tool.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { cliCodeToolFolders } from '../../src/custom-tools/code-tool-folders.ts';
import { registerCodeTools } from '../../src/custom-tools/code-tool-registration.ts';
import { CodeToolSet, type CodeToolSnapshot } from '../../src/custom-tools/code-tool-set.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

/** A temp project (`project/`) and a temp config home (`xdg/`), both real directories. */
export interface CodeToolSandbox {
  root: string;
  project: string;
  xdg: string;
  /** Writes `relative` (under root) with `text`, creating folders. */
  write(relative: string, text: string): string;
  remove(): void;
}

export function createSandbox(prefix = 'toolport-code-tools-'): CodeToolSandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const project = join(root, 'project');
  const xdg = join(root, 'xdg');
  mkdirSync(project, { recursive: true });
  mkdirSync(xdg, { recursive: true });
  return {
    root,
    project,
    xdg,
    write(relative, text) {
      const path = join(root, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The CLI's folders for the sandbox: project folders and the sandbox's own config home. */
export function sandboxToolSet(sandbox: CodeToolSandbox): CodeToolSet {
  return new CodeToolSet({
    folders: cliCodeToolFolders({
      projectDirectory: sandbox.project,
      includeUserFolders: true,
      env: { XDG_CONFIG_HOME: sandbox.xdg },
    }),
    workspace: sandbox.project,
  });
}

/** Built-ins plus the snapshot's code tools, as the CLI registers them. */
export function registryWith(snapshot: CodeToolSnapshot): ToolRegistry {
  const registry = registerBuiltinTools(new ToolRegistry());
  registerCodeTools(registry, snapshot);
  return registry;
}

export function run(
  registry: ToolRegistry,
  toolName: string,
  args: unknown,
  request: Partial<ExecuteToolRequest> = {},
): ReturnType<typeof executeTool> {
  return executeTool({ toolName, arguments: args, userId: 'tester', ...request }, { registry });
}

export function names(snapshot: CodeToolSnapshot): string[] {
  return snapshot.entries.map((entry) => entry.tool.definition.name);
}

/** The seed's math.ts: two exports, math_add and math_multiply (SPEC CODE-1 "Done when"). */
export function mathTool(addDescription = 'Add two numbers'): string {
  return `import { tool } from "toolport/plugin"

export const add = tool({
  description: ${JSON.stringify(addDescription)},
  args: {
    a: tool.schema.number().describe("First number"),
    b: tool.schema.number().describe("Second number"),
  },
  async execute(args) {
    return args.a + args.b
  },
})

export const multiply = tool({
  description: "Multiply two numbers",
  args: {
    a: tool.schema.number().describe("First number"),
    b: tool.schema.number().describe("Second number"),
  },
  async execute(args) {
    return args.a * args.b
  },
})
`;
}
