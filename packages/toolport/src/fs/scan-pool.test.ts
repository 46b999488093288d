import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFsHarness,
  errorOf,
  makeTemporaryDirectory,
  removeDirectory,
  resultOf,
} from '../../test/support/fs-harness.ts';
import type { GrepResult } from '../tools/grep.ts';
import { closeScanWorkers, runScan, type GrepJobTemplate } from './scan-pool.ts';

let work: string;

beforeAll(async () => {
  work = await makeTemporaryDirectory('toolport-scan-');
  await mkdir(join(work, 'tree'));
  await writeFile(join(work, 'tree', 'a-fine.txt'), 'aaaa\n');
  // ^(a+)+$ against many a's and a final "!" backtracks exponentially: it never finishes on its own.
  await writeFile(join(work, 'tree', 'b-evil.txt'), `${'a'.repeat(40)}!\n`);
  await mkdir(join(work, 'small', 'sub'), { recursive: true });
  for (let file = 0; file < 20; file += 1)
    await writeFile(join(work, 'small', file % 2 === 0 ? 'sub' : '.', `f${file}.txt`), `x\nneedle ${file}\n`);
  // Warm two workers, so worker start-up on a loaded machine does not eat the short budgets below.
  await runScan(
    { ...catastrophicJob(join(work, 'tree')), regexSource: 'x', fileGlob: 'a-*' },
    {
      deadlineMs: 60_000,
      parallelism: 2,
      helperDelayMs: 0,
      inThreadBudgetMs: 0,
    },
  );
});

afterAll(async () => {
  await closeScanWorkers();
  await removeDirectory(work);
});

const catastrophicJob = (root: string): GrepJobTemplate => ({
  kind: 'grep',
  root,
  isFile: false,
  fileName: '',
  refuseHardLinks: false,
  regexSource: '^(a+)+$',
  regexFlags: '',
  requiredLiterals: undefined,
  fileGlob: undefined,
  includeDotfiles: false,
  keepDotEntries: false,
  deniedRoots: [],
  respectGitignore: false,
  maxResults: 100,
  maxFileSizeBytes: 1024 * 1024,
  maxMatchesPerFile: 20,
});

describe('FS-5 grep in parallel', () => {
  it('splits the files between the lead and a helper without losing or repeating any', async () => {
    const tree = join(work, 'many');
    for (let directory = 0; directory < 30; directory += 1) {
      await mkdir(join(tree, `d${directory}`), { recursive: true });
      for (let file = 0; file < 40; file += 1) {
        await writeFile(join(tree, `d${directory}`, `f${file}.txt`), `x\nhit ${directory}/${file}\n`);
      }
    }
    const scan = await runScan<[string, number, string]>(
      { ...catastrophicJob(tree), regexSource: '^hit', maxResults: 5000, maxMatchesPerFile: 1 },
      { deadlineMs: 60_000, parallelism: 2, helperDelayMs: 0, inThreadBudgetMs: 0 },
    );
    expect(scan.workers).toBe(2);
    expect(scan.stopReason).toBeUndefined();
    expect(scan.items).toHaveLength(1200);
    expect(new Set(scan.items.map(([file]) => file)).size).toBe(1200);
    expect(scan.stats.filesScanned).toBe(1200);
    const glob = await runScan<string>(
      {
        kind: 'glob',
        root: tree,
        pattern: '**/*',
        includeDotfiles: false,
        keepDotEntries: false,
        deniedRoots: [],
        respectGitignore: false,
        maxResults: 5000,
      },
      { deadlineMs: 60_000, parallelism: 2, helperDelayMs: 0, inThreadBudgetMs: 0 },
    );
    expect(glob.workers).toBe(2);
    expect(new Set(glob.items).size).toBe(1230);
    expect(glob.items).toHaveLength(1230);
  });
});

describe('FS-5 grep under a time budget', () => {
  it('returns what was found with a time_budget stop when a catastrophic regex hangs a worker', async () => {
    for (const parallelism of [1, 2]) {
      const scan = await runScan<[string, number, string]>(catastrophicJob(join(work, 'tree')), {
        // Generous: the fine file must be searched before the budget even on a loaded machine.
        deadlineMs: 1000,
        parallelism,
      });
      expect(scan.stopReason).toBe('time_budget');
      expect(scan.items).toContainEqual(['a-fine.txt', 1, 'aaaa']);
    }
  });

  it('stops a hung scan when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const scan = await runScan(catastrophicJob(join(work, 'tree')), {
      parallelism: 2,
      deadlineMs: 60_000,
      signal: controller.signal,
    });
    expect(scan.stopReason).toBe('aborted');
  });

  it('reports a cancelled grep call as aborted, not as a timeout', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const outcome = await createFsHarness({ workingDirectory: work }).run(
      'grep',
      { pattern: '^(a+)+$', path: 'tree' },
      { signal: controller.signal },
    );
    expect(errorOf(outcome).code).toBe('aborted');
  });

  it('returns the matches found so far with truncated and a notice when grep hits its time budget', async () => {
    // The smallest budget (5 s): the scan returns at 4 s, before executeTool would report a timeout.
    const outcome = await createFsHarness({ workingDirectory: work, settings: { timeoutSeconds: 5 } }).run(
      'grep',
      {
        pattern: '^(a+)+$',
        path: 'tree',
      },
    );
    const result = resultOf<GrepResult>(outcome);
    expect(result.truncated).toBe(true);
    expect(result.notice).toContain('time budget');
    expect(result.matches).toEqual([{ file: 'tree/a-fine.txt', line: 1, text: 'aaaa' }]);
  });

  it('keeps working after a worker was terminated', async () => {
    const result = resultOf<GrepResult>(
      await createFsHarness({ workingDirectory: work }).run('grep', { pattern: 'aaaa$', path: 'tree' }),
    );
    expect(result.matches).toEqual([{ file: 'tree/a-fine.txt', line: 1, text: 'aaaa' }]);
  });
});

describe('FS-4 glob walk order', () => {
  it('walks alone in sorted depth-first order, so a truncated glob returns the same first paths every time', async () => {
    const tree = join(work, 'ordered');
    // Created out of order, nested deep enough that pending directories pass through the shared queue.
    for (const directory of ['m/z', 'm/a/q', 'b', 'm/a/c', 'a', 'zz', 'm/k']) {
      await mkdir(join(tree, directory), { recursive: true });
    }
    for (const file of [
      'zz/1.txt',
      'm/z/1.txt',
      'm/a/q/1.txt',
      'b/1.txt',
      'm/k/1.txt',
      'm/a/c/1.txt',
      'a/1.txt',
    ]) {
      await writeFile(join(tree, file), 'x');
    }
    const glob = (maxResults: number) =>
      runScan<string>(
        {
          kind: 'glob',
          root: tree,
          pattern: '**/*.txt',
          includeDotfiles: false,
          keepDotEntries: false,
          deniedRoots: [],
          respectGitignore: false,
          maxResults,
        },
        { deadlineMs: 60_000, parallelism: 1 },
      );
    const all = await glob(100);
    expect(all.items).toEqual([
      'a/1.txt',
      'b/1.txt',
      'm/a/c/1.txt',
      'm/a/q/1.txt',
      'm/k/1.txt',
      'm/z/1.txt',
      'zz/1.txt',
    ]);
    const truncated = await glob(4);
    expect(truncated.stopReason).toBe('max_results');
    expect(truncated.items).toEqual(all.items.slice(0, 4));
  });
});

describe('FS-5 small scans in the calling thread', () => {
  it('gives what workers give, in the calling thread when no worker is warm, and in workers past its budget', async () => {
    const tree = join(work, 'small');
    const job = { ...catastrophicJob(tree), regexSource: 'needle', maxResults: 5000 };
    const inWorkers = await runScan<[string, number, string]>(job, {
      deadlineMs: 60_000,
      inThreadBudgetMs: 0,
    });
    expect(inWorkers.workers).toBeGreaterThan(0);
    await closeScanWorkers();
    // A budget no loaded machine exceeds: this asserts where the scan runs, not how fast (the default is 15 ms).
    const inThread = await runScan<[string, number, string]>(job, {
      deadlineMs: 60_000,
      inThreadBudgetMs: 30_000,
    });
    expect(inThread.workers).toBe(0);
    expect(inThread.items).toEqual(inWorkers.items);
    expect(inThread.stats).toEqual(inWorkers.stats);
    // A budget too small for any scan: the in-thread run gives up and workers answer, with the same result.
    await closeScanWorkers();
    const fallenBack = await runScan<[string, number, string]>(job, {
      deadlineMs: 60_000,
      inThreadBudgetMs: 1e-6,
    });
    expect(fallenBack.workers).toBeGreaterThan(0);
    expect(fallenBack.items).toEqual(inWorkers.items);
  });

  it('never runs a regex with quantifiers in the calling thread (it could not be stopped there)', async () => {
    await closeScanWorkers();
    const scan = await runScan(
      { ...catastrophicJob(join(work, 'tree')), fileGlob: 'a-*' },
      { deadlineMs: 60_000 },
    );
    expect(scan.workers).toBeGreaterThan(0);
  });

  it('stops at maxResults in the calling thread as workers do', async () => {
    await closeScanWorkers();
    const scan = await runScan(
      { ...catastrophicJob(join(work, 'small')), regexSource: 'needle', maxResults: 3 },
      {
        deadlineMs: 60_000,
      },
    );
    expect(scan.workers).toBe(0);
    expect(scan.items).toHaveLength(3);
    expect(scan.stopReason).toBe('max_results');
  });
});
