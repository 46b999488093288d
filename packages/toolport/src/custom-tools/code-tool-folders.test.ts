import { describe, expect, it } from 'vitest';
import {
  cliCodeToolFolders,
  operatorCodeToolFolders,
  parseCodeToolRoots,
  userConfigDirectory,
} from './code-tool-folders.ts';

describe('CODE-1 code-tool folders', () => {
  it('lists the CLI folders strongest first, opencode pairs sharing a rank', () => {
    const folders = cliCodeToolFolders({
      projectDirectory: '/work/app',
      includeUserFolders: true,
      env: { XDG_CONFIG_HOME: '/cfg' },
    });
    expect(folders.map((folder) => [folder.path, folder.rank])).toEqual([
      ['/work/app/.toolport/tools', 0],
      ['/work/app/.opencode/tool', 1],
      ['/work/app/.opencode/tools', 1],
      ['/cfg/toolport/tools', 2],
      ['/cfg/opencode/tool', 3],
      ['/cfg/opencode/tools', 3],
    ]);
    expect(folders[0]!.workspace).toBe('/work/app');
    expect(folders[3]!.workspace).toBeUndefined();
  });

  it('defaults the config home to ~/.config and ignores a relative XDG_CONFIG_HOME', () => {
    expect(userConfigDirectory({ HOME: '/home/me' })).toBe('/home/me/.config');
    expect(userConfigDirectory({ HOME: '/home/me', XDG_CONFIG_HOME: 'relative' })).toBe('/home/me/.config');
    expect(userConfigDirectory({ HOME: '/home/me', XDG_CONFIG_HOME: '/x' })).toBe('/x');
  });

  it("serve's folders are only the operator roots' project folders, earlier roots stronger", () => {
    const folders = operatorCodeToolFolders(['/srv/a', '/srv/b']);
    expect(folders.map((folder) => folder.path)).toEqual([
      '/srv/a/.toolport/tools',
      '/srv/a/.opencode/tool',
      '/srv/a/.opencode/tools',
      '/srv/b/.toolport/tools',
      '/srv/b/.opencode/tool',
      '/srv/b/.opencode/tools',
    ]);
    const ranks = folders.map((folder) => folder.rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(folders.some((folder) => folder.path.includes('.config'))).toBe(false);
  });

  it('parses `:`-separated roots, skipping empty entries and resolving relative ones', () => {
    expect(parseCodeToolRoots('/a::rel: /b ', '/cwd')).toEqual(['/a', '/cwd/rel', '/b']);
    expect(parseCodeToolRoots(undefined, '/cwd')).toEqual([]);
  });
});
