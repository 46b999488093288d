import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/main.ts';
import { compileAllowlist } from '../../src/net/ip-address-policy.ts';
import { judgeOutboundUrl } from '../../src/net/outbound-url.ts';

function captureIo(env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    cwd: '/',
    env,
  };
  return { io, stdout: () => stdout, stderr: () => stderr };
}

async function netCheck(args: string[], env: NodeJS.ProcessEnv = {}) {
  const capture = captureIo(env);
  const code = await runCli(['net', 'check', ...args], capture.io);
  return {
    code,
    stderr: capture.stderr(),
    verdict: capture.stdout() === '' ? undefined : (JSON.parse(capture.stdout()) as Record<string, unknown>),
  };
}

describe('NET-1 toolport net check', () => {
  it.each([
    ['http://127.0.0.1:7420/', 'loopback', ['127.0.0.1']],
    ['http://[::ffff:10.0.0.1]/', 'IPv4-mapped private', ['::ffff:a00:1']],
    ['http://169.254.169.254/latest/', 'cloud metadata endpoint (never allowed)', ['169.254.169.254']],
    ['http://168.63.129.16/', 'cloud metadata endpoint (never allowed)', ['168.63.129.16']],
    ['http://localhost:1/', 'loopback (localhost)', []],
    ['http://user:pw@example.com/', 'credentials in the URL (user:password@) are not allowed', []],
    ['http://example.com:0/', 'port 0 is not allowed (ports 1-65535)', []],
    ['ftp://example.com/', 'scheme ftp is not allowed (http and https only)', []],
    ['not a url', 'not an absolute URL', []],
  ])('blocks %s (exit 1, one JSON line, nothing sent)', async (url, reason, addresses) => {
    const result = await netCheck([url, '--no-resolve']);
    expect(result.code).toBe(1);
    expect(result.verdict).toEqual({ url, verdict: 'block', reason, addresses });
  });

  it('allows a public literal, and a host name by the name rules alone with --no-resolve (addresses empty)', async () => {
    expect(await netCheck(['https://93.184.215.14/x'])).toMatchObject({
      code: 0,
      verdict: { verdict: 'allow', addresses: ['93.184.215.14'] },
    });
    expect(await netCheck(['https://api.example.com/x', '--no-resolve'])).toMatchObject({
      code: 0,
      verdict: { url: 'https://api.example.com/x', verdict: 'allow', addresses: [] },
    });
  });

  it('reads the operator allowlist from TOOLPORT_OUTBOUND_ALLOW (metadata stays blocked)', async () => {
    const env = { TOOLPORT_OUTBOUND_ALLOW: '127.0.0.2,169.254.0.0/16' };
    expect(await netCheck(['http://127.0.0.2:9/'], env)).toMatchObject({
      code: 0,
      verdict: { verdict: 'allow' },
    });
    expect(await netCheck(['http://169.254.169.254/'], env)).toMatchObject({
      code: 1,
      verdict: { verdict: 'block' },
    });
    expect((await netCheck(['http://127.0.0.2/'], { TOOLPORT_OUTBOUND_ALLOW: '10.0.0.0/99' })).code).toBe(2);
  });

  it('is a usage error only without exactly one URL', async () => {
    expect((await netCheck([])).code).toBe(2);
    expect((await netCheck(['http://a.test/', 'http://b.test/'])).code).toBe(2);
  });

  it('judges every resolved address: one blocked address blocks the host', async () => {
    const resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ];
    expect(await judgeOutboundUrl('https://mixed.example/', compileAllowlist(), resolve)).toEqual({
      url: 'https://mixed.example/',
      verdict: 'block',
      reason: '10.1.2.3: private',
      addresses: ['93.184.215.14', '10.1.2.3'],
    });
    const failing = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    expect(await judgeOutboundUrl('https://nowhere.example/', compileAllowlist(), failing)).toMatchObject({
      verdict: 'block',
      reason: 'nowhere.example does not resolve (ENOTFOUND)',
    });
  });
});
