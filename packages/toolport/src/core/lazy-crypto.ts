import type * as NodeCrypto from 'node:crypto';

/**
 * `node:crypto`, loaded on first use. A static import makes every process that loads the importing module pay for
 * it at start-up (its index loads some twenty internal modules: about 8 ms here), and a one-shot
 * `toolport tools run grep` never hashes anything (issue 11 item 1). `process.getBuiltinModule` caches like import.
 */
export function nodeCrypto(): typeof NodeCrypto {
  return process.getBuiltinModule('node:crypto');
}

/** `bytes` random bytes as hex, from the OS's CSPRNG. */
export function randomHex(bytes: number): string {
  return nodeCrypto().randomBytes(bytes).toString('hex');
}
