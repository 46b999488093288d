import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolportError } from '../core/errors.ts';
import { makeTemporaryDirectory, removeDirectory } from '../../test/support/fs-harness.ts';
import {
  createPathPolicy,
  isPathInside,
  resolveAndValidatePath,
  verifyOpenedPath,
  type PathPolicyOptions,
} from './resolve-and-validate-path.ts';

let root: string;
let work: string;
let outside: string;
let home: string;

async function refusal(
  input: string,
  options: PathPolicyOptions,
): Promise<{ code: string; message: string }> {
  try {
    const resolved = await resolveAndValidatePath(input, options);
    throw new Error(`expected a refusal, resolved to ${resolved.realPath}`);
  } catch (error) {
    if (!isToolportError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

beforeAll(async () => {
  root = await makeTemporaryDirectory('toolport-path-');
  work = join(root, 'w');
  outside = join(root, 'outside');
  home = join(root, 'home');
  await mkdir(join(work, 'secret'), { recursive: true });
  await mkdir(join(work, 'sub'), { recursive: true });
  await mkdir(join(root, 'w_evil'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await mkdir(join(home, '.ssh'), { recursive: true });
  await writeFile(join(work, 'secret', 'key.txt'), 'key');
  await writeFile(join(work, 'secretary.txt'), 'not secret');
  await writeFile(join(root, 'w_evil', 'x.txt'), 'evil');
  await writeFile(join(outside, 'data.txt'), 'outside data');
  await writeFile(join(home, '.ssh', 'id_rsa'), 'private');
  await symlink(outside, join(work, 'link-out'));
  await symlink(join(outside, 'data.txt'), join(work, 'link-file'));
  await symlink(join(work, 'secret'), join(work, 'alias'));
  await symlink(join(outside, 'new.txt'), join(work, 'dangling'));
  await symlink('sub', join(work, 'link-in'));
});

afterAll(async () => {
  await removeDirectory(root);
});

describe('PATH-2 isPathInside', () => {
  it('decides containment on path-segment boundaries', () => {
    expect(isPathInside('/a/b', '/a/b')).toBe(true);
    expect(isPathInside('/a/b/c', '/a/b')).toBe(true);
    expect(isPathInside('/a/bc', '/a/b')).toBe(false);
    expect(isPathInside('/a', '/a/b')).toBe(false);
    expect(isPathInside('/anything', '/')).toBe(true);
  });
});

describe('PATH-2 resolveAndValidatePath', () => {
  const agent = (extra: Partial<PathPolicyOptions> = {}): PathPolicyOptions => ({
    mode: 'agent',
    workingDirectory: work,
    allowedPaths: [work],
    homeDirectory: home,
    ...extra,
  });

  it('resolves absolute, relative and ~ paths', async () => {
    expect((await resolveAndValidatePath(join(work, 'secretary.txt'), agent())).realPath).toBe(
      join(work, 'secretary.txt'),
    );
    expect((await resolveAndValidatePath('sub/../secretary.txt', agent())).realPath).toBe(
      join(work, 'secretary.txt'),
    );
    const tilde = { mode: 'chat', homeDirectory: home } as const;
    expect((await resolveAndValidatePath('~', tilde)).realPath).toBe(home);
    expect((await resolveAndValidatePath('~/.ssh/id_rsa', tilde)).realPath).toBe(
      join(home, '.ssh', 'id_rsa'),
    );
  });

  it('refuses the ~user form instead of guessing', async () => {
    const error = await refusal('~root/.bashrc', { mode: 'chat', homeDirectory: home });
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('~/');
  });

  it('treats a ~ that does not start the path as a literal name', async () => {
    const resolved = await resolveAndValidatePath('sub/~', agent());
    expect(resolved.realPath).toBe(join(work, 'sub', '~'));
    expect(resolved.exists).toBe(false);
  });

  it('denies ~ paths inside a denied ~ entry', async () => {
    const error = await refusal('~/.ssh/id_rsa', {
      mode: 'chat',
      homeDirectory: home,
      deniedPaths: ['~/.ssh'],
    });
    expect(error.code).toBe('permission_denied');
  });

  it('refuses a prefix sibling of the allowed root (/w vs /w_evil)', async () => {
    const error = await refusal(join(root, 'w_evil', 'x.txt'), agent());
    expect(error.code).toBe('permission_denied');
    expect(error.message).toContain('outside the allowed paths');
    expect(error.message).toContain(work);
  });

  it('does not deny a prefix sibling of a denied path (/w/secret vs /w/secretary.txt)', async () => {
    const options = agent({ deniedPaths: [join(work, 'secret')] });
    expect((await resolveAndValidatePath('secretary.txt', options)).exists).toBe(true);
    expect((await refusal('secret/key.txt', options)).code).toBe('permission_denied');
  });

  it('lets a denied path win over an allowed one', async () => {
    const error = await refusal(
      join(work, 'secret', 'key.txt'),
      agent({ deniedPaths: [join(work, 'secret')] }),
    );
    expect(error.code).toBe('permission_denied');
    expect(error.message).toContain('deniedPaths');
  });

  it('refuses a symlink inside the root that points out (directory and file)', async () => {
    expect((await refusal('link-out/data.txt', agent())).code).toBe('permission_denied');
    const fileLink = await refusal('link-file', agent());
    expect(fileLink.code).toBe('permission_denied');
    expect(fileLink.message).toContain(join(outside, 'data.txt'));
  });

  it('refuses a not-yet-existing file under a symlinked parent directory that points out', async () => {
    expect((await refusal('link-out/deeper/new.txt', agent())).code).toBe('permission_denied');
  });

  it('resolves .. after a symlink physically, as the kernel does', async () => {
    // Lexically w/link-out/../w_evil/x.txt is w/w_evil/x.txt (inside); physically it is <root>/w_evil/x.txt.
    const error = await refusal('link-out/../w_evil/x.txt', agent());
    expect(error.code).toBe('permission_denied');
    expect(error.message).toContain(join(root, 'w_evil', 'x.txt'));
  });

  it('refuses a denied subtree reached through a symlink alias', async () => {
    const error = await refusal('alias/key.txt', agent({ deniedPaths: [join(work, 'secret')] }));
    expect(error.code).toBe('permission_denied');
  });

  it('denies the target of a denied entry that is itself a symlink', async () => {
    const error = await refusal(
      join(work, 'secret', 'key.txt'),
      agent({ deniedPaths: [join(work, 'alias')] }),
    );
    expect(error.code).toBe('permission_denied');
  });

  it('follows a dangling symlink to where a create would land', async () => {
    expect((await refusal('dangling', agent())).code).toBe('permission_denied');
    const unrestricted = await resolveAndValidatePath('dangling', { mode: 'agent', workingDirectory: work });
    expect(unrestricted).toMatchObject({ realPath: join(outside, 'new.txt'), exists: false });
  });

  it('resolves a file to be created through an inside symlink to its real location', async () => {
    const resolved = await resolveAndValidatePath('link-in/created.txt', agent());
    expect(resolved).toMatchObject({ realPath: join(work, 'sub', 'created.txt'), exists: false });
  });

  it('restrictToWorkingDirectory confines agent mode to the working directory', async () => {
    const options: PathPolicyOptions = {
      mode: 'agent',
      workingDirectory: work,
      restrictToWorkingDirectory: true,
    };
    expect((await refusal(join(outside, 'data.txt'), options)).code).toBe('permission_denied');
    expect((await resolveAndValidatePath('secretary.txt', options)).exists).toBe(true);
  });

  it('refuses an empty path and a path with a NUL byte', async () => {
    expect((await refusal('', agent())).code).toBe('validation_failed');
    expect((await refusal('a\0b', agent())).code).toBe('validation_failed');
  });
});

describe('PATH-1 modes', () => {
  it('resolves relative paths from the working directory in agent mode only', async () => {
    const policyAgent = await createPathPolicy({
      mode: 'agent',
      workingDirectory: work,
      processDirectory: outside,
    });
    expect((await policyAgent.resolve('secretary.txt')).realPath).toBe(join(work, 'secretary.txt'));
    expect(policyAgent.anchorDirectory).toBe(work);
    const policyChat = await createPathPolicy({
      mode: 'chat',
      workingDirectory: work,
      processDirectory: outside,
    });
    expect((await policyChat.resolve('data.txt')).realPath).toBe(join(outside, 'data.txt'));
    expect(policyChat.anchorDirectory).toBeUndefined();
  });
});

describe('PATH-2 verifyOpenedPath', () => {
  it.skipIf(process.platform !== 'linux')(
    're-checks the real path of the opened descriptor (a swap after the check is caught)',
    async () => {
      const policy = await createPathPolicy({ mode: 'agent', workingDirectory: work, allowedPaths: [work] });
      // Simulates the race: the check saw w/secretary.txt, but the descriptor is a file outside the root.
      const handle = await open(join(outside, 'data.txt'), 'r');
      try {
        await expect(verifyOpenedPath(handle, join(work, 'secretary.txt'), policy)).rejects.toMatchObject({
          code: 'permission_denied',
        });
      } finally {
        await handle.close();
      }
      const inside = await open(join(work, 'secretary.txt'), 'r');
      try {
        await expect(verifyOpenedPath(inside, join(work, 'secretary.txt'), policy)).resolves.toBe(
          join(work, 'secretary.txt'),
        );
      } finally {
        await inside.close();
      }
    },
  );
});
