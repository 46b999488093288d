import { describe, expect, it } from 'vitest';
import { isToolportError } from '../core/errors.ts';
import {
  REDACTED_VALUE,
  applyRedactedValues,
  parseMcpServerConfig,
  redactMcpServerConfig,
} from './mcp-server-config.ts';
import { resolveSecretReferences } from './resolve-secret-references.ts';

function errorOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isToolportError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an error');
}

describe('MCP-1 server config', () => {
  it('accepts a stdio config and drops unknown fields', () => {
    const config = parseMcpServerConfig({
      id: 's1',
      name: 'files',
      transport: 'stdio',
      command: 'node',
      args: ['server.js'],
      env: { TOKEN: '{{FILES_TOKEN}}' },
      extra: 'ignored',
    });
    expect(config).toEqual({
      id: 's1',
      name: 'files',
      enabled: true,
      transport: 'stdio',
      command: 'node',
      args: ['server.js'],
      env: { TOKEN: '{{FILES_TOKEN}}' },
    });
  });

  it('accepts a remote config with the auto protocol by default', () => {
    const config = parseMcpServerConfig({
      id: 'r1',
      name: 'remote',
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer {{KEY}}' },
      enabled: false,
      callTimeoutSeconds: 10,
      connectTimeoutSeconds: 5,
    });
    expect(config).toMatchObject({
      protocol: 'auto',
      enabled: false,
      callTimeoutSeconds: 10,
      connectTimeoutSeconds: 5,
    });
  });

  it.each([
    [{ id: 'a', name: 'n', transport: 'ws', url: 'x' }, 'transport'],
    [{ id: 'a', name: 'n', transport: 'stdio' }, 'command'],
    [{ id: 'a', name: 'n', transport: 'stdio', command: 'x', args: [1] }, 'args'],
    [{ id: 'a', name: 'n', transport: 'http', url: 'ftp://host/' }, 'url'],
    [{ id: 'a', name: 'n', transport: 'http', url: 'not a url' }, 'url'],
    [{ id: 'a', name: 'n', transport: 'http', url: 'http://h/', headers: { 'a b': 'x' } }, 'headers.a b'],
    [{ id: 'a', name: 'n', transport: 'stdio', command: 'x', callTimeoutSeconds: 0 }, 'callTimeoutSeconds'],
    [
      { id: 'a', name: 'n', transport: 'stdio', command: 'x', connectTimeoutSeconds: 0 },
      'connectTimeoutSeconds',
    ],
    [
      { id: 'a', name: 'n', transport: 'stdio', command: 'x', connectTimeoutSeconds: 301 },
      'connectTimeoutSeconds',
    ],
    [
      { id: 'a', name: 'n', transport: 'stdio', command: 'x', connectTimeoutSeconds: '5' },
      'connectTimeoutSeconds',
    ],
    [{ id: 'a', name: 'n', transport: 'stdio', command: 'x', enabled: 'yes' }, 'enabled'],
    [{ name: 'n', transport: 'stdio', command: 'x' }, 'id'],
  ])('rejects %j naming %s', (input, field) => {
    const error = errorOf(() => parseMcpServerConfig(input));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain(`\`${field}\``);
  });

  it('never returns header or environment values from a GET, and keeps them across a redacted update', () => {
    const stored = parseMcpServerConfig({
      id: 'r1',
      name: 'remote',
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer sk-live-123', 'X-Team': 'core' },
    });
    const shown = redactMcpServerConfig(stored);
    expect(JSON.stringify(shown)).not.toContain('sk-live-123');
    expect(shown.transport === 'http' && shown.headers).toEqual({
      Authorization: REDACTED_VALUE,
      'X-Team': REDACTED_VALUE,
    });
    const edited = { ...shown, headers: { Authorization: REDACTED_VALUE, 'X-Team': 'platform' } };
    const merged = applyRedactedValues(parseMcpServerConfig(edited), stored);
    expect(merged.transport === 'http' && merged.headers).toEqual({
      Authorization: 'Bearer sk-live-123',
      'X-Team': 'platform',
    });

    const stdio = parseMcpServerConfig({
      id: 's',
      name: 's',
      transport: 'stdio',
      command: 'x',
      env: { K: 'v1' },
    });
    expect(JSON.stringify(redactMcpServerConfig(stdio))).not.toContain('v1');
  });

  it('resolves {{SECRET}} references at connect time and names a missing secret', async () => {
    const secrets = { getSecret: async (name: string) => (name === 'KEY' ? 'sk-1' : undefined) };
    await expect(
      resolveSecretReferences({ Authorization: 'Bearer {{KEY}}', Plain: 'x' }, secrets, 'header'),
    ).resolves.toEqual({ Authorization: 'Bearer sk-1', Plain: 'x' });
    await expect(resolveSecretReferences({ A: '{{ MISSING }}' }, secrets, 'header')).rejects.toThrow(
      /\{\{MISSING\}\}/,
    );
  });
});
