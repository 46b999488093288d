import { randomUUID } from 'node:crypto';

let lastMillis = -1;
let lastPrefix = '';

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Issue 11: the audit table's primary key takes
 * one new id per tool call; random v4 ids land all over its index, which on a table of real size costs a page read
 * and write per insert, while ids that grow with time append at its end.
 *
 * The random part comes from `randomUUID()` (Node draws its entropy in bulk; a `randomFillSync` per id and a hex
 * encode cost more than the rest of a tool call's bookkeeping): a v4 id's variant bits are already v7's, its version
 * digit is replaced, and 74 of its random bits are kept.
 */
export function timeOrderedUuid(now = Date.now()): string {
  if (now !== lastMillis) {
    const hex = now.toString(16).padStart(12, '0');
    lastPrefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7`;
    lastMillis = now;
  }
  // A v4 id is 8-4-4-4-12 hex digits with the version digit "4" at index 14: keep everything after that digit
  // (3 random digits, the variant group, the last 12 digits).
  return lastPrefix + randomUUID().slice(15);
}
