import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCoalescedLineWriter } from './coalesced-line-writer.ts';

function recordingStream(): { stream: Writable; chunks: string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, chunks };
}

describe('MCP-2 stdio answers written together', () => {
  it('writes the lines of one event-loop turn in one write, in order', async () => {
    const { stream, chunks } = recordingStream();
    const writer = createCoalescedLineWriter(stream);
    writer.write('{"id":1}\n');
    writer.write('{"id":2}\n');
    writer.write('{"id":3}\n');
    await new Promise((resolve) => setImmediate(resolve));
    writer.write('{"id":4}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(['{"id":1}\n{"id":2}\n{"id":3}\n', '{"id":4}\n']);
  });

  it('flush writes what is queued at once, and nothing twice', async () => {
    const { stream, chunks } = recordingStream();
    const writer = createCoalescedLineWriter(stream);
    writer.write('{"id":1}\n');
    writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(['{"id":1}\n']);
  });
});
