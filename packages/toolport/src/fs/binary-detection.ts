/**
 * SPEC FS-1/FS-5: one binary-detection window shared by read_file and grep, so a file grep searches is a file
 * read_file opens as text, and a file grep skips as binary is one read_file refuses (naming the byte views).
 */
export const BINARY_DETECTION_WINDOW_BYTES = 8 * 1024;

/** True when `bytes` has a NUL byte within the first 8 KiB (only the first `length` bytes are meaningful). */
export function looksBinary(bytes: Uint8Array, length: number = bytes.length): boolean {
  const end = Math.min(length, BINARY_DETECTION_WINDOW_BYTES, bytes.length);
  return bytes.subarray(0, end).includes(0);
}
