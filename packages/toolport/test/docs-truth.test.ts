import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isErrorCode } from '../src/core/error-codes.ts';
import { SecretService } from '../src/services/secret-service.ts';
import { LIST_DIRECTORY_DESCRIPTION } from '../src/tools/list-directory.ts';
import { GREP_DESCRIPTION } from '../src/tools/grep.ts';
import { createFsHarness, errorOf, resultOf } from './support/fs-harness.ts';

const REPOSITORY = resolve(import.meta.dirname, '../../..');
const SOURCE = resolve(import.meta.dirname, '../src');
const read = (path: string): string => readFileSync(join(REPOSITORY, path), 'utf8');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Statements the issue-10 audit found false, pinned so they stay true. */
describe('docs that are true', () => {
  it('every error code the source emits in an error payload or event is in the table (docs/errors.md)', () => {
    const emitted = new Set<string>();
    for (const file of sourceFiles(SOURCE)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\bcode: '([a-z_]+)'/g)) emitted.add(match[1]!);
    }
    expect(emitted).toContain('provider_error');
    expect([...emitted].filter((code) => !isErrorCode(code))).toEqual([]);
  });

  it('docs/mcp.md calls the secret service by a method it has', () => {
    const calls = [...read('docs/mcp.md').matchAll(/secretsService\.([a-zA-Z]+)\(/g)].map(
      (match) => match[1]!,
    );
    expect(calls.length).toBeGreaterThan(0);
    for (const method of calls)
      expect(typeof Reflect.get(SecretService.prototype, method), method).toBe('function');
  });

  it('no document announces the database freshness ledger as still to come', () => {
    for (const path of ['README.md', 'AGENTS.md', 'docs/path-policy.md', 'docs/server.md'])
      expect(read(path), path).not.toMatch(/database store will|ledger[^.]*to come/i);
  });

  it('the shell sweep is not described as running only on timeout', () => {
    for (const path of ['README.md', 'AGENTS.md'])
      expect(read(path), path).not.toMatch(
        /runs only on timeout|not per call|killed too when the call\s+is cut short/,
      );
  });

  it('images are not described as living in the data directory', () => {
    expect(read('README.md')).not.toContain('<data dir>/images');
  });

  it('list_directory and grep promise an omitted path only where it works: chat mode refuses it', async () => {
    for (const description of [LIST_DIRECTORY_DESCRIPTION, GREP_DESCRIPTION])
      expect(description).not.toContain('when the chat has a working directory');
    const work = realWorkingDirectory();
    const chat = createFsHarness({ workingDirectory: work, mode: 'chat' });
    expect(errorOf(await chat.run('list_directory', {})).code).toBe('validation_failed');
    const agent = createFsHarness({ workingDirectory: work, mode: 'agent' });
    expect(resultOf<{ path: string }>(await agent.run('list_directory', {})).path).toBe(work);
  });
});

function realWorkingDirectory(): string {
  return realpathSync(resolve(import.meta.dirname));
}
