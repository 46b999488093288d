import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { executeTool } from '../../src/core/execute-tool.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

// `toolport serve` passes its data directory as a protected path: the secret key and the admin token live there.
describe('PATH-2 operator-protected paths', () => {
  const registry = registerBuiltinTools(new ToolRegistry());
  const dataDirectory = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-data-')));
  writeFileSync(join(dataDirectory, 'secret.key'), 'k'.repeat(44));
  afterAll(() => rmSync(dataDirectory, { recursive: true, force: true }));
  const call = (toolName: string, args: Record<string, unknown>, protectedPaths?: string[]) =>
    executeTool(
      { toolName, arguments: args, userId: 'u', chatId: 'c', mode: 'chat' },
      { registry, services: protectedPaths === undefined ? {} : { protectedPaths } },
    );

  it('refuses to read, list, search or write inside a protected path whatever the user settings allow', async () => {
    const key = join(dataDirectory, 'secret.key');
    expect((await call('read_file', { path: key })).ok).toBe(true);
    for (const [tool, args] of [
      ['read_file', { path: key }],
      ['list_directory', { path: dataDirectory }],
      ['grep', { pattern: 'k', path: dataDirectory }],
      ['write_file', { path: join(dataDirectory, 'new.txt'), content: 'x' }],
    ] as const) {
      const outcome = await call(tool, args, [dataDirectory]);
      expect(outcome.ok || outcome.error.code, tool).toBe('permission_denied');
    }
  });

  it('says the path is operator-protected, not excluded by a setting the user could change', async () => {
    const outcome = await call('read_file', { path: join(dataDirectory, 'secret.key') }, [dataDirectory]);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.message).toContain('which the operator protects');
    expect(outcome.error.message).not.toContain('deniedPaths');
  });
});
