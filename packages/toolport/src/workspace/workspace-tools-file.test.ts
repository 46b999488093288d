import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWorkspaceToolsFile } from './workspace-tools-file.ts';
import { WorkspaceToolSet } from './workspace-tool-set.ts';

describe('WS-1 tools.json loading', () => {
  let workspace: string;
  let outside: string;
  const writeTools = (tools: unknown[]): void =>
    writeFileSync(join(workspace, 'tools.json'), JSON.stringify({ tools }));

  beforeEach(() => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-ws-file-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-ws-outside-')));
    mkdirSync(join(workspace, 'scripts'));
    writeFileSync(join(workspace, 'scripts', 'ok.js'), 'async function main() { return 1; }');
    writeFileSync(join(outside, 'secret.js'), 'async function main() { return 2; }');
    symlinkSync(join(outside, 'secret.js'), join(workspace, 'scripts', 'link.js'));
  });
  afterEach(() => {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('loads the seed format with defaults and reports every invalid entry by index, name and field', async () => {
    writeTools([
      {
        name: 'search-products',
        description: 'Search',
        script: 'scripts/ok.js',
        timeout: 30,
        parameters: { type: 'object', properties: { keyword: { type: 'string' } }, required: ['keyword'] },
      },
      { name: 'plain', description: 'No optional fields', script: 'scripts/ok.js' },
      { name: 'bad name', description: 'x', script: 'scripts/ok.js' },
      { name: 'plain', description: 'duplicate', script: 'scripts/ok.js' },
      { name: 'slow', description: 'x', script: 'scripts/ok.js', timeout: 601 },
      { name: 'escape', description: 'x', script: 'scripts/link.js' },
      { name: 'dotdot', description: 'x', script: '../x.js' },
      { name: 'missing', description: 'x', script: 'scripts/none.js' },
      {
        name: 'schema',
        description: 'x',
        script: 'scripts/ok.js',
        parameters: { type: 'object', properties: { a: { type: 'nonsense' } } },
      },
      { name: 'read_file', description: 'x', script: 'scripts/ok.js' },
      {
        name: 'templ',
        description: 'x',
        script: 'scripts/ok.js',
        headers: { Authorization: 'Bearer {{ not a name }}' },
      },
      { name: 'nodesc', script: 'scripts/ok.js' },
    ]);
    const file = await loadWorkspaceToolsFile(workspace, { isReservedName: (name) => name === 'read_file' });
    expect(file?.tools.map((tool) => tool.name)).toEqual(['search-products', 'plain']);
    expect(file?.tools[1]).toMatchObject({ timeoutSeconds: 30, parameters: { type: 'object' }, headers: {} });
    const byIndex = new Map(file!.errors.map((error) => [error.index, error]));
    expect(byIndex.get(2)).toMatchObject({ name: 'bad name', field: 'name' });
    expect(byIndex.get(3)).toMatchObject({ name: 'plain', field: 'name' });
    expect(byIndex.get(3)?.message).toContain('duplicate');
    expect(byIndex.get(4)).toMatchObject({ name: 'slow', field: 'timeout' });
    expect(byIndex.get(5)).toMatchObject({ name: 'escape', field: 'script' });
    expect(byIndex.get(5)?.message).toContain('inside the workspace');
    expect(byIndex.get(6)).toMatchObject({ name: 'dotdot', field: 'script' });
    expect(byIndex.get(7)).toMatchObject({ name: 'missing', field: 'script' });
    expect(byIndex.get(8)).toMatchObject({ name: 'schema', field: 'parameters' });
    expect(byIndex.get(9)).toMatchObject({ name: 'read_file', field: 'name' });
    expect(byIndex.get(10)).toMatchObject({ name: 'templ', field: 'headers.Authorization' });
    expect(byIndex.get(11)).toMatchObject({ name: 'nodesc', field: 'description' });
  });

  it('lists the secrets that header templates name', async () => {
    writeTools([
      {
        name: 't',
        description: 'x',
        script: 'scripts/ok.js',
        headers: { Authorization: 'Bearer {{API_TOKEN}}', 'X-Api-Key': '{{API_KEY}}' },
      },
    ]);
    const file = await loadWorkspaceToolsFile(workspace);
    expect(file?.tools[0]?.secretNames).toEqual(['API_TOKEN', 'API_KEY']);
  });

  it('a reload with any invalid entry is rejected whole and the last good set stays', async () => {
    writeTools([{ name: 'one', description: 'x', script: 'scripts/ok.js' }]);
    const set = new WorkspaceToolSet(workspace);
    await set.ensureLoaded();
    writeTools([
      { name: 'one', description: 'x', script: 'scripts/ok.js' },
      { name: 'two', description: 'x', script: 'scripts/ok.js', timeout: 0 },
    ]);
    const rejected = await set.reload();
    expect(rejected.accepted).toBe(false);
    expect(rejected.message).toContain('tools[1] (two) timeout');
    expect(set.specs.map((spec) => spec.name)).toEqual(['one']);
    writeTools([
      { name: 'one', description: 'x', script: 'scripts/ok.js' },
      { name: 'two', description: 'x', script: 'scripts/ok.js' },
    ]);
    expect((await set.reload()).accepted).toBe(true);
    expect(set.specs.map((spec) => spec.name)).toEqual(['one', 'two']);
  });

  it('reports a file that is not JSON or has no tools array', async () => {
    writeFileSync(join(workspace, 'tools.json'), '{ nope');
    expect((await loadWorkspaceToolsFile(workspace))?.errors[0]).toMatchObject({
      index: -1,
      field: '(file)',
    });
    writeFileSync(join(workspace, 'tools.json'), '{"tools": {}}');
    expect((await loadWorkspaceToolsFile(workspace))?.errors[0]?.message).toContain('`tools` array');
    rmSync(join(workspace, 'tools.json'));
    expect(await loadWorkspaceToolsFile(workspace)).toBeUndefined();
  });
});
