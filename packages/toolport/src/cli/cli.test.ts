import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.ts';
import { runCli } from './main.ts';

// The CLI's read-before-write state: this file's own directory, removed afterwards.
const stateDirectory = mkdtempSync(join(tmpdir(), 'toolport-cli-state-'));
afterAll(() => rmSync(stateDirectory, { recursive: true, force: true }));

function capture(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    cwd: process.cwd(),
    env: { TOOLPORT_STATE_DIR: stateDirectory },
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
  };
  return io;
}

describe('CLI-1 toolport tools list', () => {
  it('lists every registered tool with title, category, default and can-disable', async () => {
    const io = capture();
    expect(await runCli(['tools', 'list'], io)).toBe(0);
    expect(io.out.split('\n')[0]).toMatch(/^NAME\s+TITLE\s+CATEGORY\s+DEFAULT\s+CAN DISABLE$/);
    expect(io.out).toMatch(/get_current_datetime\s+Current date and time\s+system\s+enabled\s+yes/);
  });

  it('prints JSON with --json', async () => {
    const io = capture();
    expect(await runCli(['tools', 'list', '--json'], io)).toBe(0);
    const listing = JSON.parse(io.out) as { tools: Array<Record<string, unknown>> };
    expect(listing.tools).toContainEqual(
      expect.objectContaining({
        name: 'get_current_datetime',
        category: 'system',
        enabledByDefault: true,
        canDisable: true,
      }),
    );
  });
});

describe('CLI-1 toolport tools run', () => {
  it('prints the result JSON and exits 0', async () => {
    const io = capture();
    const code = await runCli(
      ['tools', 'run', 'get_current_datetime', '--args', '{"timezone":"Asia/Tokyo"}'],
      io,
    );
    expect(code).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ timezone: 'Asia/Tokyo', offset: '+09:00' });
  });

  it('prints {"error":{code,message}} on stdout and exits 1 for a tool error', async () => {
    const io = capture();
    const code = await runCli(['tools', 'run', 'get_current_datetime', '--args', '{"timezone":42}'], io);
    expect(code).toBe(1);
    const printed = JSON.parse(io.out) as { error: { code: string; message: string } };
    expect(Object.keys(printed.error)).toEqual(['code', 'message']);
    expect(printed.error.code).toBe('validation_failed');
    expect(printed.error.message).toContain('`timezone`');
  });

  it('exits 1 with not_found for an unknown tool', async () => {
    const io = capture();
    expect(await runCli(['tools', 'run', 'no_such_tool'], io)).toBe(1);
    expect(JSON.parse(io.out)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('applies --settings as overrides, flat or nested, and rejects invalid ones with exit 1', async () => {
    const io = capture();
    expect(
      await runCli(
        ['tools', 'run', 'get_current_datetime', '--settings', '{"defaultTimezone":"Asia/Tokyo"}'],
        io,
      ),
    ).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ timezone: 'Asia/Tokyo' });
    const nested = capture();
    expect(
      await runCli(
        ['tools', 'run', 'get_current_datetime', '--settings', '{"parameters":{"defaultLocale":"pt-BR"}}'],
        nested,
      ),
    ).toBe(0);
    expect(JSON.parse(nested.out)).toMatchObject({ locale: 'pt-BR' });
    const invalid = capture();
    expect(await runCli(['tools', 'run', 'get_current_datetime', '--settings', '{"bogus":1}'], invalid)).toBe(
      1,
    );
    expect(JSON.parse(invalid.out)).toMatchObject({ error: { code: 'invalid_settings' } });
  });

  it('--settings {"enabled": false} makes the tool disabled (exit 1)', async () => {
    const io = capture();
    expect(
      await runCli(['tools', 'run', 'get_current_datetime', '--settings', '{"enabled":false}'], io),
    ).toBe(1);
    expect(JSON.parse(io.out)).toMatchObject({ error: { code: 'disabled' } });
  });

  it.each([
    [['tools', 'run', 'get_current_datetime', '--bogus']],
    [['tools', 'run', 'get_current_datetime', '--args', '{not json']],
    [['tools', 'run', 'get_current_datetime', '--args', '[1]']],
    [['tools', 'run', 'get_current_datetime', '--settings', '{bad']],
    [['tools', 'run', 'get_current_datetime', '--mode', 'turbo']],
    [['tools', 'run', 'get_current_datetime', '--workdir', '/definitely/not/here']],
    [['tools', 'run']],
    [['tools', 'run', 'a', 'b']],
    [['tools', 'list', '--yaml']],
    [['frobnicate']],
    [[]],
  ])('exits 2 with a message on stderr for bad usage: %j', async (argv) => {
    const io = capture();
    expect(await runCli(argv, io)).toBe(2);
    expect(io.err.length).toBeGreaterThan(0);
    expect(io.out).toBe('');
  });

  it('accepts an existing --workdir and defaults to agent mode with it', async () => {
    const directory = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-cli-')));
    const io = capture();
    try {
      expect(
        await runCli(['tools', 'run', 'get_current_datetime', '--workdir', directory, '--mode', 'chat'], io),
      ).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
