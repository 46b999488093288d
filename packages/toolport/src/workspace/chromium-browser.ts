import type { Browser as PlaywrightBrowser, Page as PlaywrightPage } from 'playwright-core';
import { ToolportError } from '../core/errors.ts';
import type { OutboundHttpClient } from '../core/tool-types.ts';
import { findExecutableOnPath } from '../tools/shell/find-executable-on-path.ts';
import type { BrowserLauncher, BrowserSession } from './workspace-browser.ts';

const NAVIGATION_TIMEOUT_MS = 20_000;
const ACTION_TIMEOUT_MS = 10_000;

/**
 * Chromium is told to use a proxy that does not exist, for loopback too (`<-loopback>`): every request the browser
 * would make on its own fails closed. Page requests never reach it — each is intercepted (`context.route`) and
 * performed by NET-1 — so the address checks, redirects and caps of `createSafeFetch` apply to every page request.
 */
const CHROMIUM_ARGUMENTS = [
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--no-pings',
  '--dns-prefetch-disable',
  '--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication',
];

/** `TOOLPORT_CHROMIUM_PATH`, else chromium, chromium-browser or google-chrome on PATH; undefined without one. */
export function findChromiumExecutable(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const configured = env.TOOLPORT_CHROMIUM_PATH;
  if (configured !== undefined && configured !== '') return configured;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = findExecutableOnPath(name, env.PATH);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `g.nav` on headless Chromium through playwright-core: one browser process per toolport process (started on the
 * first g.nav call), one context per script call, closed at its end.
 */
export function createChromiumLauncher(
  executablePath: string | undefined,
  client: OutboundHttpClient,
): { launcher: BrowserLauncher; close(): Promise<void> } {
  let browser: Promise<PlaywrightBrowser> | undefined;
  const launchBrowser = async (): Promise<PlaywrightBrowser> => {
    const { chromium } = await import('playwright-core');
    const launched = await chromium.launch({
      executablePath: executablePath!,
      headless: true,
      args: CHROMIUM_ARGUMENTS,
    });
    launched.on('disconnected', () => {
      browser = undefined;
    });
    return launched;
  };
  const launcher: BrowserLauncher = () => {
    if (executablePath === undefined) return undefined;
    return (async (): Promise<BrowserSession> => {
      browser ??= launchBrowser();
      const context = await (await browser).newContext({ serviceWorkers: 'block', acceptDownloads: false });
      let lastRefusal: string | undefined;
      await context.route('**/*', async (route) => {
        const request = route.request();
        try {
          const body = request.postDataBuffer();
          const response = await client.request({
            url: request.url(),
            method: request.method(),
            headers: await request.allHeaders(),
            ...(body === null ? {} : { body: new Uint8Array(body) }),
          });
          // The body arrives decoded: its encoding and length headers no longer describe it.
          const headers = { ...response.headers };
          delete headers['content-encoding'];
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          await route.fulfill({ status: response.status, headers, body: Buffer.from(response.body) });
        } catch (error) {
          lastRefusal = error instanceof Error ? error.message : String(error);
          await route.abort('blockedbyclient').catch(() => {});
        }
      });
      let page: PlaywrightPage | undefined;
      const currentPage = async (): Promise<PlaywrightPage> => {
        page ??= await context.newPage();
        page.setDefaultTimeout(ACTION_TIMEOUT_MS);
        return page;
      };
      return {
        run: async (action, args) => {
          const active = await currentPage();
          const text = (index: number, name: string): string => {
            const value = args[index];
            if (typeof value !== 'string') {
              throw new ToolportError('validation_failed', `g.nav.${action}: \`${name}\` must be a string.`);
            }
            return value;
          };
          switch (action) {
            case 'navigateToUrl': {
              const url = text(0, 'url');
              lastRefusal = undefined;
              const response = await active
                .goto(url, { waitUntil: 'load', timeout: NAVIGATION_TIMEOUT_MS })
                .catch((error: unknown) => {
                  if (lastRefusal !== undefined) {
                    throw new ToolportError(
                      'permission_denied',
                      `g.nav.navigateToUrl(${url}): ${lastRefusal}`,
                    );
                  }
                  throw error;
                });
              return { url: active.url(), status: response?.status() ?? null, title: await active.title() };
            }
            case 'getText':
              return args[0] === undefined
                ? active.locator('body').innerText()
                : active.locator(text(0, 'selector')).first().innerText();
            case 'click':
              await active.locator(text(0, 'selector')).first().click();
              return null;
            case 'fill':
              await active.locator(text(0, 'selector')).first().fill(text(1, 'value'));
              return null;
            case 'screenshot':
              return { mimeType: 'image/png', data: (await active.screenshot()).toString('base64') };
            default:
              throw new ToolportError('validation_failed', `g.nav has no action ${action}.`);
          }
        },
        close: () => context.close(),
      };
    })();
  };
  return {
    launcher,
    close: async () => {
      const running = browser;
      browser = undefined;
      if (running !== undefined) await (await running.catch(() => undefined))?.close();
    },
  };
}
