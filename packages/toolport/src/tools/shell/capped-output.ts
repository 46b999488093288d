/**
 * Collects one output stream up to `maxBytes` while it streams: bytes past the cap are counted and dropped at once,
 * never buffered, so `yes` cannot grow memory past the cap however long it runs (FS-6).
 */
export class CappedOutput {
  readonly maxBytes: number;
  private readonly chunks: Buffer[] = [];
  private keptBytes = 0;
  /** Every byte the stream delivered, kept or not. */
  totalBytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get truncated(): boolean {
    return this.totalBytes > this.keptBytes;
  }

  append(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    const room = this.maxBytes - this.keptBytes;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.keptBytes += kept.length;
  }

  /** The kept bytes as UTF-8; a multi-byte character cut by the cap is dropped rather than turned into U+FFFD. */
  text(): string {
    const bytes = Buffer.concat(this.chunks, this.keptBytes);
    return (this.truncated ? withoutIncompleteUtf8Tail(bytes) : bytes).toString('utf8');
  }
}

/** `bytes` minus a trailing UTF-8 sequence that the cut left incomplete. */
export function withoutIncompleteUtf8Tail(bytes: Buffer): Buffer {
  // A sequence is at most 4 bytes: look back at most 3 continuation bytes for its lead byte.
  for (let back = 1; back <= Math.min(4, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0b1100_0000) === 0b1000_0000) continue; // continuation byte
    const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}
