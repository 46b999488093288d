import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../bash.ts';
import { listBuiltinTools } from '../index.ts';
import { createPowershellTool, findPowershellSpec } from '../powershell.ts';
import { createZshTool } from '../zsh.ts';
import { findExecutableOnPath } from './find-executable-on-path.ts';

describe('FS-6 shell availability', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolport-path-'));
  const first = join(root, 'first');
  const second = join(root, 'second');
  mkdirSync(first);
  mkdirSync(second);
  writeFileSync(join(first, 'tool'), '#!/bin/sh\n'); // not executable
  writeFileSync(join(second, 'tool'), '#!/bin/sh\n');
  chmodSync(join(second, 'tool'), 0o755);
  mkdirSync(join(first, 'bash')); // a directory is not an interpreter
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds the first executable file on PATH, skipping non-executables, directories and relative entries', () => {
    expect(findExecutableOnPath('tool', `.:${first}:${second}`, 'linux')).toBe(join(second, 'tool'));
    expect(findExecutableOnPath('tool', first, 'linux')).toBeUndefined();
    expect(findExecutableOnPath('tool', '', 'linux')).toBeUndefined();
  });

  it('registers bash and zsh only when they are on PATH', () => {
    expect(createBashTool(first)).toBeUndefined();
    expect(createZshTool(second)).toBeUndefined();
    expect(createBashTool('/usr/bin:/bin')?.definition.name).toBe('bash');
  });

  it('lists the shells found on PATH among the built-ins, disabled by default', () => {
    const shells = listBuiltinTools().filter((tool) =>
      ['bash', 'zsh', 'powershell'].includes(tool.definition.name),
    );
    expect(shells.map((tool) => tool.definition.name)).toEqual(
      ['bash', 'zsh'].filter((name) => findExecutableOnPath(name) !== undefined),
    );
    for (const shell of shells) expect(shell.settings.enabledByDefault).toBe(false);
  });

  it('offers powershell only on Windows, preferring pwsh over powershell', () => {
    const windows = join(root, 'windows');
    mkdirSync(windows);
    writeFileSync(join(windows, 'powershell.EXE'), '');
    expect(createPowershellTool(windows, 'linux')).toBeUndefined();
    const tool = createPowershellTool(windows, 'win32');
    expect(tool?.definition.name).toBe('powershell');
    expect(tool?.definition.description).toContain('-NoProfile -NonInteractive -Command');
    expect(findPowershellSpec(windows, 'win32')?.interpreter).toBe(join(windows, 'powershell.EXE'));
    writeFileSync(join(windows, 'pwsh.EXE'), '');
    expect(findPowershellSpec(windows, 'win32')?.interpreter).toBe(join(windows, 'pwsh.EXE'));
  });
});
