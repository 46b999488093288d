import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

// The README's library example must keep working: run it as written, with `toolport` pointing at the source.
const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## As a library'));
const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];

describe('README library example', () => {
  it('registers a tool and executes it', async () => {
    expect(example).toBeDefined();
    const directory = new URL('./.generated/', import.meta.url);
    mkdirSync(directory, { recursive: true });
    const file = new URL('readme-example.ts', directory);
    writeFileSync(file, example!.replaceAll("from 'toolport'", "from '../../src/index.ts'"));
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(file.href);
      expect(log).toHaveBeenCalledWith({ text: 'HI' });
    } finally {
      log.mockRestore();
    }
  });
});
