import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandboxScratch } from '../support/sandbox-scratch.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { createToolRuntime } from '../../src/core/tool-runtime.ts';
import { createMcpServer } from '../../src/mcp/mcp-server.ts';
import { serveMcpOverStdio } from '../../src/mcp/mcp-stdio-server.ts';
import { createPermissionCheck } from '../../src/permissions/permission-check.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

const DONE_WHEN_RULE = { '*': 'ask', 'git status*': 'allow', 'rm -rf *': 'deny' } as const;

/** The SDK client's side of the lean stdio server, over in-process streams (newline-delimited JSON-RPC). */
class StreamClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #toServer: PassThrough;
  readonly #fromServer: PassThrough;
  constructor(toServer: PassThrough, fromServer: PassThrough) {
    this.#toServer = toServer;
    this.#fromServer = fromServer;
  }
  async start(): Promise<void> {
    let buffered = '';
    this.#fromServer.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.trim() !== '') this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
    });
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.#toServer.write(`${JSON.stringify(message)}\n`);
  }
  async close(): Promise<void> {
    this.#toServer.end();
    this.onclose?.();
  }
}

type Answer = { action: 'accept' | 'decline'; content?: Record<string, unknown> };

describe.each(['stdio (toolport mcp)', 'SDK server (/mcp)'] as const)(
  'issue 16 MCP approval over %s',
  (kind) => {
    let workdir: string;
    beforeAll(() => {
      workdir = makeSandboxScratch('toolport-mcp-approvals-', ['build']);
    });
    afterAll(() => rmSync(workdir, { recursive: true, force: true }));

    const connect = async (
      elicitation: boolean,
      answers: Answer[],
      asked: string[],
      options: { approvalTimeoutSeconds?: number; hang?: boolean } = {},
    ) => {
      const runtime = createToolRuntime({
        entries: registerBuiltinTools(new ToolRegistry()).listEntries(),
        savedSettings: new Map([['bash', { enabled: true }]]),
        userId: 'u',
        workingDirectory: workdir,
        mode: 'agent',
        permission: createPermissionCheck({
          rulesFor: (name) =>
            name === 'bash'
              ? {
                  user: DONE_WHEN_RULE,
                  ...(options.approvalTimeoutSeconds === undefined
                    ? {}
                    : { approvalTimeoutSeconds: options.approvalTimeoutSeconds }),
                }
              : undefined,
        }),
      });
      const client = new Client(
        { name: 'approval-test', version: '1.0.0' },
        { capabilities: elicitation ? { elicitation: {} } : {} },
      );
      if (elicitation) {
        client.setRequestHandler(ElicitRequestSchema, (request) => {
          asked.push(request.params.message);
          // A human who never answers.
          if (options.hang === true) return new Promise<never>(() => {});
          return answers.shift() ?? { action: 'decline' };
        });
      }
      let close: () => Promise<void>;
      if (kind === 'stdio (toolport mcp)') {
        const toServer = new PassThrough();
        const fromServer = new PassThrough();
        const server = serveMcpOverStdio({ runtime, input: toServer, output: fromServer });
        await client.connect(new StreamClientTransport(toServer, fromServer));
        close = async () => {
          await client.close();
          await server.closed;
        };
      } else {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        const server = createMcpServer({ runtime });
        await server.connect(serverSide);
        await client.connect(clientSide);
        close = async () => {
          await client.close();
          await server.close();
        };
      }
      const bash = async (command: string) => {
        const result = await client.callTool({ name: 'bash', arguments: { command } });
        return { isError: result.isError === true, text: JSON.stringify(result.content) };
      };
      return { bash, close };
    };

    it('a client with elicitation is asked for ask calls only: accept runs, decline refuses, deny rules refuse unasked', async () => {
      const asked: string[] = [];
      const { bash, close } = await connect(true, [{ action: 'accept' }, { action: 'decline' }], asked);
      try {
        expect((await bash('git status')).text).not.toContain('permission_denied');
        expect(asked).toEqual([]);
        expect((await bash('touch build/x')).isError).toBe(false);
        expect(existsSync(join(workdir, 'build', 'x'))).toBe(true);
        const declined = await bash('touch build/y');
        expect(declined.isError).toBe(true);
        expect(declined.text).toContain('declined');
        expect(existsSync(join(workdir, 'build', 'y'))).toBe(false);
        const refused = await bash('rm -rf build');
        expect(refused.text).toContain('permission_denied');
        expect(existsSync(join(workdir, 'build'))).toBe(true);
        expect(asked).toHaveLength(2);
        expect(asked[0]).toContain('touch build/x');
      } finally {
        await close();
      }
    });

    it('a client that never answers is denied after the approval timeout', async () => {
      const { bash, close } = await connect(true, [], [], { approvalTimeoutSeconds: 0.2, hang: true });
      try {
        const refused = await bash('touch build/late');
        expect(refused.isError).toBe(true);
        expect(refused.text).toContain('nobody approved it within');
        expect(existsSync(join(workdir, 'build', 'late'))).toBe(false);
      } finally {
        await close();
      }
    });

    it('a client without elicitation gets a clear refusal, never a silent run', async () => {
      const { bash, close } = await connect(false, [], []);
      try {
        const refused = await bash('touch build/z');
        expect(refused.isError).toBe(true);
        expect(refused.text).toContain('does not support elicitation');
        expect(existsSync(join(workdir, 'build', 'z'))).toBe(false);
        expect((await bash('git status')).text).not.toContain('permission_denied');
      } finally {
        await close();
      }
    });
  },
);
