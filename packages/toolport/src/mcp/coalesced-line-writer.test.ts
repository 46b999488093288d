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
  it('writes the lines of one burst in one write, in order', async () => {
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

  it("writes a burst's answers before the event loop moves on (no answer waits a loop turn)", async () => {
    const { stream, chunks } = recordingStream();
    const writer = createCoalescedLineWriter(stream);
    // Queued before the answers: a flush deferred to the next loop turn (setImmediate) would come after it.
    const seenNextTurn = new Promise<string[]>((resolve) => setImmediate(() => resolve([...chunks])));
    await Promise.resolve();
    writer.write('{"id":1}\n');
    await Promise.resolve();
    writer.write('{"id":2}\n');
    expect(await seenNextTurn).toEqual(['{"id":1}\n{"id":2}\n']);
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
