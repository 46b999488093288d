import { describe, expect, it } from 'vitest';
import { buildChildEnvironment } from './build-child-environment.ts';

describe('FS-6 child environment', () => {
  const server = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/app',
    LANG: 'C.UTF-8',
    TERM: 'xterm',
    DATABASE_URL: 'postgres://secret',
    OPENAI_API_KEY: 'sk-secret',
    GIT_AUTHOR_NAME: 'Ada',
  };

  it('copies only PATH, HOME, LANG and TERM', () => {
    expect(buildChildEnvironment(server, [], 'linux')).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/app',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
    });
  });

  it('adds allowlisted names that are set, and ignores the ones that are not', () => {
    expect(buildChildEnvironment(server, ['GIT_AUTHOR_NAME', 'NOT_SET'], 'linux')).toMatchObject({
      GIT_AUTHOR_NAME: 'Ada',
    });
    expect(buildChildEnvironment(server, ['NOT_SET'], 'linux')).not.toHaveProperty('NOT_SET');
  });

  it('falls back to a standard PATH when the server has none', () => {
    expect(buildChildEnvironment({}, [], 'linux').PATH).toContain('/usr/bin');
  });

  it('on Windows matches names case-insensitively and keeps what programs need to start', () => {
    const environment = buildChildEnvironment(
      { Path: 'C:\\Windows', SYSTEMROOT: 'C:\\Windows', API_TOKEN: 'secret' },
      [],
      'win32',
    );
    expect(environment).toMatchObject({ PATH: 'C:\\Windows', SystemRoot: 'C:\\Windows' });
    expect(Object.values(environment)).not.toContain('secret');
  });
});
