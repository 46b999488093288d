import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs it); playwright-core never downloads a browser. */
export const CHROMIUM_PATH = process.env.TOOLPORT_CHROMIUM ?? '/usr/bin/chromium';
export const WEB_UI_INDEX = fileURLToPath(new URL('../../../web/dist/index.html', import.meta.url));
export const SCREENSHOT_DIRECTORY = fileURLToPath(
  new URL('../../../../test-results/web-ui/', import.meta.url),
);
const BIN = fileURLToPath(new URL('../../bin/toolport.js', import.meta.url));

export function assertBrowserPrerequisites(): void {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `No chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set TOOLPORT_CHROMIUM).`,
    );
  if (!existsSync(WEB_UI_INDEX))
    throw new Error(`The web UI is not built (${WEB_UI_INDEX}): run npm run build.`);
}

export interface ServeProcess {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The login URL serve printed, with `#token=`. */
  loginUrl: string;
  token: string;
  stop(): Promise<void>;
}

/** Spawns the built `toolport serve` on SQLite in a temp data dir and reads the login URL from its stderr. */
export async function spawnServe(env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const dataDirectory = mkdtempSync(join(tmpdir(), 'toolport-ui-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--data-dir', dataDirectory, '--log-level', 'warn'],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const loginUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no login URL: ${stderr}`)), 20_000);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /Log in: (http:\/\/\S+#token=\S+)/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}): ${stderr}`));
    });
  });
  const url = new URL(loginUrl).origin;
  return {
    url,
    loginUrl,
    token: new URL(loginUrl).hash.replace('#token=', ''),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDirectory, { recursive: true, force: true });
    },
  };
}

export interface BrowserSession {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless chromium with a fresh profile, no network beyond what the page asks for (loopback here). */
export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'toolport-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIRECTORY, { recursive: true });
  return join(SCREENSHOT_DIRECTORY, `${name}.png`);
}

/** Calls the API the way the UI does, for setting up and checking what the page shows. */
export async function apiCall(
  server: ServeProcess,
  method: string,
  path: string,
  body?: unknown,
  token = server.token,
) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text === '' ? undefined : JSON.parse(text)) as Record<string, unknown>,
  };
}

/** Follows the main navigation's link and waits for the page's own heading (links and headings share names). */
export async function openPage(page: Page, link: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link, exact: true }).waitFor();
}
