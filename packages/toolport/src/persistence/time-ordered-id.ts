import { randomFillSync } from 'node:crypto';

const bytes = Buffer.alloc(16);
/** Random bytes drawn in bulk: one `randomFillSync` per id cost more than the rest of the id (issue 14 item 8). */
const POOL_IDS = 512;
const pool = Buffer.alloc(POOL_IDS * 10);
let poolOffset = pool.length;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Issue 11: the audit table's primary key takes
 * one new id per tool call; random v4 ids land all over its index, which on a table of real size costs a page read
 * and write per insert, while ids that grow with time append at its end.
 */
export function timeOrderedUuid(now = Date.now()): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(bytes, 6, poolOffset, poolOffset + 10);
  poolOffset += 10;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
