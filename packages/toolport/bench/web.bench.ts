/// <reference lib="dom" />
// Code passed to page.evaluate runs in the browser: it needs the DOM types.
// UI-1 budgets: the JavaScript loaded before the navigation renders (≤ 250 KB gzip) and the time from a reload to the
// tool list on screen (≤ 1 s), in Debian's chromium against a spawned `toolport serve`. Needs `npm run build` first.
import { gzipSync } from 'node:zlib';
import { assertBrowserPrerequisites, launchBrowser, spawnServe } from '../test/ui/browser-harness.ts';

const RELOADS = 15;
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

assertBrowserPrerequisites();
const server = await spawnServe();
const browser = await launchBrowser();
try {
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const scripts = new Map<string, Buffer>();
  let navigationRendered = false;
  page.on('response', (response) => {
    if (navigationRendered || response.request().resourceType() !== 'script') return;
    const url = response.url();
    void response
      .body()
      .then((body) => scripts.set(url, body))
      .catch(() => {});
  });
  await page.goto(server.loginUrl);
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  navigationRendered = true;
  await page.getByRole('switch').first().waitFor();
  await page.waitForLoadState('networkidle');
  const raw = [...scripts.values()].reduce((sum, body) => sum + body.length, 0);
  const gzip = [...scripts.values()].reduce((sum, body) => sum + gzipSync(body).length, 0);
  process.stdout.write(
    `JS before the navigation renders: ${scripts.size} files, ${(raw / 1024).toFixed(1)} KB raw, ` +
      `${(gzip / 1024).toFixed(1)} KB gzip (budget 250 KB gzip)\n`,
  );

  const marks: number[] = [];
  const walls: number[] = [];
  for (let index = 0; index < RELOADS; index++) {
    const started = performance.now();
    await page.reload();
    await page.getByRole('switch').first().waitFor();
    walls.push(performance.now() - started);
    marks.push(
      await page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const read = () => {
              const mark = performance.getEntriesByName('toolport:tools-rendered')[0];
              if (mark === undefined) requestAnimationFrame(read);
              else resolve(mark.startTime);
            };
            read();
          }),
      ),
    );
  }
  process.stdout.write(
    `reload → tool list rendered (${RELOADS} reloads): median ${median(marks).toFixed(0)} ms from navigation start ` +
      `(max ${Math.max(...marks).toFixed(0)} ms), ${median(walls).toFixed(0)} ms wall clock in the driver ` +
      `(budget 1000 ms)\n`,
  );
} finally {
  await browser.close();
  await server.stop();
}
