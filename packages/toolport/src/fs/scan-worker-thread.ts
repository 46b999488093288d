/** The scan worker's entry (`scan-pool.ts` starts it by URL): one job per message, answered by `runScanJob`. */
import { parentPort } from 'node:worker_threads';
import type { ScanJob } from './scan-protocol.ts';
import { runScanJob } from './scan-worker.ts';

parentPort!.on('message', (job: ScanJob) => {
  runScanJob(job, (message) => parentPort!.postMessage(message));
});
