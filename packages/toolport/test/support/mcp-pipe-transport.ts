import { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRuntime } from '../../src/core/tool-runtime.ts';
import { serveMcpOverStdio } from '../../src/mcp/mcp-stdio-server.ts';

/** The official SDK client on the lean stdio server, through in-memory pipes (same bytes as a real stdio pipe). */
export function pipeTransport(runtime: ToolRuntime): Transport {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const server = serveMcpOverStdio({ runtime, input: toServer, output: fromServer });
  const buffer = new ReadBuffer();
  const transport: Transport = {
    start: async () => {
      fromServer.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) {
          transport.onmessage?.(message);
        }
      });
    },
    send: async (message: JSONRPCMessage) => {
      toServer.write(serializeMessage(message));
    },
    close: async () => {
      toServer.end();
      await server.closed;
      transport.onclose?.();
    },
  };
  return transport;
}
