import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTemporaryDirectory, removeDirectory } from '../../test/support/fs-harness.ts';
import { FileFreshnessLedger, getCliFreshnessDirectory } from './file-freshness-ledger.ts';
import { InMemoryFreshnessLedger, getFreshnessLedger, processFreshnessLedger } from './freshness-ledger.ts';

let state: string;

beforeAll(async () => {
  state = await makeTemporaryDirectory('toolport-ledger-');
});

afterAll(async () => {
  await removeDirectory(state);
});

describe('FS-2 freshness ledger (in memory)', () => {
  it('keeps hashes per scope and evicts the least recently recorded path past its bound', async () => {
    const ledger = new InMemoryFreshnessLedger({ maxEntriesPerScope: 2 });
    await ledger.recordHash('chat:a', '/x', 'h1');
    await ledger.recordHash('chat:a', '/y', 'h2');
    await ledger.recordHash('chat:a', '/x', 'h3');
    await ledger.recordHash('chat:a', '/z', 'h4');
    expect(await ledger.getRecordedHash('chat:a', '/x')).toBe('h3');
    expect(await ledger.getRecordedHash('chat:a', '/y')).toBeUndefined();
    expect(await ledger.getRecordedHash('chat:b', '/x')).toBeUndefined();
  });

  it('falls back to the process-wide ledger when the host passes none', () => {
    expect(getFreshnessLedger({ services: {} })).toBe(processFreshnessLedger);
    const own = new InMemoryFreshnessLedger();
    expect(getFreshnessLedger({ services: { freshnessLedger: own } })).toBe(own);
  });
});

describe('FS-2 freshness ledger (file, for the CLI)', () => {
  it('persists across instances, one private file per scope', async () => {
    const directory = join(state, 'freshness');
    await new FileFreshnessLedger(directory).recordHash('chat:cli', '/a', 'h1');
    expect(await new FileFreshnessLedger(directory).getRecordedHash('chat:cli', '/a')).toBe('h1');
    expect(await new FileFreshnessLedger(directory).getRecordedHash('chat:other', '/a')).toBeUndefined();
    expect((await readdir(directory)).filter((name) => name.endsWith('.json'))).toHaveLength(1);
  });

  it('reads a corrupt file as empty (the guard then asks for a new read)', async () => {
    const directory = join(state, 'corrupt');
    const ledger = new FileFreshnessLedger(directory);
    await ledger.recordHash('chat:x', '/a', 'h1');
    const [file] = await readdir(directory);
    await writeFile(join(directory, file!), '{not json');
    expect(await ledger.getRecordedHash('chat:x', '/a')).toBeUndefined();
  });

  it('uses TOOLPORT_STATE_DIR, then XDG_STATE_HOME', async () => {
    expect(await getCliFreshnessDirectory({ TOOLPORT_STATE_DIR: '/s' })).toBe('/s/freshness');
    expect(await getCliFreshnessDirectory({ XDG_STATE_HOME: '/x' })).toBe('/x/toolport/freshness');
  });
});
