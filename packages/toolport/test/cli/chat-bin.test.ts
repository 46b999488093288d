import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';

const BIN = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));
const BUILT = existsSync(fileURLToPath(new URL('../../dist/cli/chat-command.js', import.meta.url)));

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// `npm test` builds first; a bare `vitest run` without dist/ skips this one spawn of the real bin.
describe.skipIf(!BUILT)('CLI-1 toolport chat, the real bin against the fake server', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await FakeProviderServer.start();
  });
  afterAll(() => server.close());

  it('shows the tool call and its result on stderr and the answer on stdout, exit 0', async () => {
    server.enqueue(
      'anthropic',
      scriptStep('anthropic', {
        toolCalls: [{ id: 'toolu_1', name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' }],
      }),
    );
    server.enqueue('anthropic', scriptStep('anthropic', { text: 'It is now.' }));
    const { code, stdout, stderr } = await run(
      [
        'chat',
        '--provider',
        'anthropic',
        '--model',
        'claude-test',
        '--base-url',
        server.baseURLFor('anthropic'),
        '-p',
        'time?',
      ],
      { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'test-key' },
    );
    expect(stderr).toContain('→ get_current_datetime {"timezone":"UTC"}');
    expect(stderr).toContain('← get_current_datetime ok');
    expect(stdout).toBe('It is now.\n');
    expect(code).toBe(0);
  });
});
