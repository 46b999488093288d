/// <reference lib="dom" />
// Code passed to page.evaluate runs in the browser: it needs the DOM types.
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import {
  apiCall,
  assertBrowserPrerequisites,
  launchBrowser,
  openPage,
  screenshotPath,
  spawnServe,
  type BrowserSession,
  type ServeProcess,
} from './browser-harness.ts';

const EVERYTHING = fileURLToPath(
  import.meta
    .resolve('@modelcontextprotocol/server-everything/package.json')
    .replace(/package\.json$/, 'dist/index.js'),
);
const SECRET_VALUE = 'sk-ui-test-5f2c9a1e-never-shown';
const NAV_LINKS = [
  'Tools',
  'Secrets',
  'Providers',
  'MCP servers',
  'HTTP tools',
  'Agents',
  'Chats',
  'Activity',
  'Inspector',
  'Playground',
  'Connect',
];

/** Every text the page holds where a secret could hide: markup, input values, and this tab's storage. */
async function everythingThePageHolds(page: Page): Promise<string> {
  return page.evaluate(() => {
    const values = [...document.querySelectorAll('input, textarea, select')].map(
      (element) => (element as HTMLInputElement).value,
    );
    const storage = [sessionStorage, localStorage].flatMap((store) =>
      Object.keys(store).map((key) => `${key}=${store.getItem(key) ?? ''}`),
    );
    return [document.documentElement.outerHTML, ...values, ...storage].join('\n');
  });
}

// A shared 2-core machine can make one step slow; the budgets are measured by the bench, never here.
describe('UI-1 the web UI in a real browser against toolport serve', { timeout: 90_000 }, () => {
  let server: ServeProcess;
  let browser: BrowserSession;
  let page: Page;
  let fake: FakeProviderServer;

  beforeAll(async () => {
    assertBrowserPrerequisites();
    fake = await FakeProviderServer.start();
    server = await spawnServe();
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
  });

  it('logs in from the printed URL, drops the token from the address bar and keeps it in session storage', async () => {
    await page.goto(server.loginUrl);
    await page.getByRole('heading', { level: 2, name: 'Built-in', exact: true }).waitFor();
    expect(page.url()).toBe(`${server.url}/tools`);
    expect(await page.evaluate(() => sessionStorage.getItem('toolport.token'))).toBe(server.token);
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of NAV_LINKS) expect(await nav.getByRole('link', { name, exact: true }).count()).toBe(1);
    for (const heading of ['Built-in', 'Code', 'Workspace', 'HTTP', 'MCP', 'Agent']) {
      expect(await page.getByRole('heading', { level: 2, name: heading, exact: true }).count()).toBe(1);
    }
  });

  it('survives a reload on a client-side route, while unknown /api and /mcp paths keep their JSON 404', async () => {
    await page.goto(`${server.url}/secrets`);
    await page.getByRole('heading', { level: 1, name: 'Secrets' }).waitFor();
    const api404 = await fetch(`${server.url}/api/no-such-route`);
    expect(api404.status).toBe(404);
    expect(((await api404.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const mcp404 = await fetch(`${server.url}/mcp/deeper`);
    expect(mcp404.status).toBe(404);
    expect(mcp404.headers.get('content-type')).toContain('application/json');
  });

  it('disabling a tool takes it out of the capability inspector', { timeout: 60_000 }, async () => {
    await openPage(page, 'Inspector');
    await page.getByRole('button', { name: 'Create a chat' }).click();
    await page.getByRole('combobox', { name: 'Chat' }).waitFor();
    const toolCell = page.getByRole('cell', { name: 'get_current_datetime', exact: true });
    await toolCell.waitFor();
    expect(await page.getByText('may start your enabled MCP servers').count()).toBe(1);

    await openPage(page, 'Tools');
    const toggle = page.getByRole('switch', { name: 'Enable get_current_datetime' });
    expect(await toggle.isChecked()).toBe(true);
    await toggle.click();
    await page.waitForFunction(() => {
      const element = document.querySelector<HTMLInputElement>('[aria-label="Enable get_current_datetime"]');
      return element !== null && !element.checked && !element.disabled;
    });
    const stored = await apiCall(server, 'GET', '/api/settings/tools/get_current_datetime');
    expect(stored.body.enabled).toBe(false);

    await openPage(page, 'Inspector');
    await page.getByRole('cell', { name: 'read_file', exact: true }).waitFor();
    expect(await toolCell.count()).toBe(0);

    // Back on for the playground and the chat turn below.
    await openPage(page, 'Tools');
    await toggle.click();
    await page.waitForFunction(
      () =>
        document.querySelector<HTMLInputElement>('[aria-label="Enable get_current_datetime"]')?.checked ===
        true,
    );
  });

  it('shows the 422 message of an out-of-bounds setting at its field', { timeout: 60_000 }, async () => {
    // Any tool with a bounded integer setting will do; the form knows nothing of any tool in particular.
    const { body } = await apiCall(server, 'GET', '/api/settings/tools');
    type Descriptor = { name: string; type: string; maximum?: number };
    const tools = body.tools as { name: string; parameterDescriptors: Descriptor[] }[];
    const tool = tools.find((item) =>
      item.parameterDescriptors.some((d) => d.type === 'integer' && d.maximum !== undefined),
    )!;
    const setting = tool.parameterDescriptors.find((d) => d.type === 'integer' && d.maximum !== undefined)!;
    const tooBig = setting.maximum! + 1;
    const card = page.getByRole('article', { name: new RegExp(`\\b${tool.name}\\b`) });
    const field = card.getByLabel(new RegExp(`\\(${setting.name}\\)`));
    await field.fill(String(tooBig));
    await card.getByRole('button', { name: 'Save settings' }).click();
    const expected = await apiCall(server, 'PUT', `/api/settings/tools/${tool.name}`, {
      parameters: { [setting.name]: tooBig },
    });
    expect(expected.status).toBe(422);
    const message = (expected.body.error as { message: string }).message;
    // At the field: inside the field's own container, and announced as the input's description.
    const error = field.locator('xpath=..').getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toBe(message);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const description = await field.evaluate((input) =>
      (input.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
    expect(description).toContain(message);
    await page.screenshot({ path: screenshotPath('tools-422-at-field') });
  });

  it('adds a secret and never shows its value again', async () => {
    await openPage(page, 'Secrets');
    const form = page.getByRole('form', { name: 'Set or replace a secret' });
    await form.getByLabel('Name').fill('UI_TEST_SECRET');
    await form.getByLabel('Value').fill(SECRET_VALUE);
    await form.getByRole('button', { name: 'Save secret' }).click();
    await page.getByRole('cell', { name: 'UI_TEST_SECRET', exact: true }).waitFor();
    expect(await everythingThePageHolds(page)).not.toContain(SECRET_VALUE);
    await page.reload();
    await page.getByRole('cell', { name: 'UI_TEST_SECRET', exact: true }).waitFor();
    expect(await everythingThePageHolds(page)).not.toContain(SECRET_VALUE);
    const listed = await apiCall(server, 'GET', '/api/secrets');
    expect(JSON.stringify(listed.body)).not.toContain(SECRET_VALUE);
  });

  it('adds an MCP stdio server (server-everything), connects it and shows its status and tools', async () => {
    await openPage(page, 'MCP servers');
    const form = page.getByRole('form', { name: 'Add an MCP server' });
    await form.getByLabel('Name', { exact: true }).fill('everything');
    await form.getByRole('radio', { name: /stdio/ }).check();
    await form.getByLabel('Command').fill(process.execPath);
    await form.getByLabel('Arguments').fill(EVERYTHING);
    await form.getByRole('button', { name: 'Add server' }).click();
    const card = page.getByRole('article', { name: /everything/ });
    // server-everything's first start (node_modules, cold cache) takes seconds on a loaded 2-core machine.
    await card.getByText('connected', { exact: true }).waitFor({ timeout: 60_000 });
    const tools = card.getByRole('region', { name: 'Tools of everything' }).getByRole('listitem');
    await tools.first().waitFor();
    const status = await apiCall(server, 'GET', '/api/mcp-servers');
    const listed = (status.body.servers as { status: { toolCount?: number } }[])[0]!;
    expect(listed.status.toolCount).toBeGreaterThan(0);
    expect(await tools.count()).toBe(listed.status.toolCount);
    await page.screenshot({ path: screenshotPath('mcp-servers-connected'), fullPage: false });
  }, 90_000);

  it('runs a tool in the playground from its schema form', async () => {
    await openPage(page, 'Playground');
    await page.getByRole('combobox', { name: 'Tool' }).selectOption('get_current_datetime');
    await page.getByLabel('timezone', { exact: true }).fill('Asia/Tokyo');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const structured = page.getByLabel('Structured result');
    await structured.waitFor();
    expect(await structured.textContent()).toContain('Asia/Tokyo');
    expect(await page.getByLabel('Text the model receives').textContent()).toContain('Asia/Tokyo');
    expect(await page.getByText(/Duration: \d/).count()).toBe(1);
  });

  it('runs a chat turn against the loopback fake provider and shows the live tool-call events', async () => {
    // The provider is configured through the UI too, its key a secret from the Secrets page.
    await openPage(page, 'Providers');
    const form = page.getByRole('form', { name: 'Add a provider' });
    await form.getByLabel('Name').fill('fake');
    await form.getByLabel('Provider kind').selectOption('openai-chat');
    await form.getByLabel('Base URL').fill(fake.baseURLFor('openai-chat'));
    await form.getByLabel('Default model').fill('fake-model');
    await form.getByLabel('API key secret').selectOption('UI_TEST_SECRET');
    await form.getByRole('button', { name: 'Add provider' }).click();
    await page.getByRole('cell', { name: 'fake', exact: true }).waitFor();

    fake.enqueue(
      'openai-chat',
      scriptStep('openai-chat', {
        toolCalls: [{ id: 'call_ui_1', name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' }],
      }),
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'It is morning in UTC.' }));

    await openPage(page, 'Playground');
    await page.getByRole('combobox', { name: 'Provider' }).selectOption('fake');
    await page.getByRole('textbox', { name: 'Message' }).fill('What time is it in UTC?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('It is morning in UTC.').waitFor();
    const call = page.getByRole('listitem', { name: 'Tool call get_current_datetime' });
    expect(await call.getByText('result', { exact: true }).count()).toBe(1);
    expect(await call.getByLabel('Arguments of get_current_datetime').textContent()).toBe(
      '{"timezone":"UTC"}',
    );
    expect(await call.getByLabel('Result of get_current_datetime').textContent()).toContain('UTC');
    const log = (await page.getByRole('list', { name: 'Event log' }).textContent()) ?? '';
    for (const type of [
      'tool_call_started',
      'tool_call_arguments_delta',
      'tool_call_completed',
      'tool_result',
      'turn_completed',
    ])
      expect(log).toContain(type);
    expect(fake.requests.at(-1)?.apiKey).toContain(SECRET_VALUE);
    await page.screenshot({ path: screenshotPath('playground-chat-turn'), fullPage: true });
  }, 60_000);

  it('issue 16: a call a rule marks ask waits in the chat until Approve is clicked', async () => {
    const setPermission = async (permission: unknown) => {
      const response = await fetch(`${server.url}/api/settings/tools/get_current_datetime`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ permission }),
      });
      expect(response.status).toBe(200);
    };
    await setPermission('ask');
    try {
      fake.enqueue(
        'openai-chat',
        scriptStep('openai-chat', {
          toolCalls: [{ id: 'call_ui_ask', name: 'get_current_datetime', arguments: '{"timezone":"UTC"}' }],
        }),
      );
      fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'Approved and answered.' }));
      await page.getByRole('combobox', { name: 'Provider' }).selectOption('fake');
      await page.getByRole('textbox', { name: 'Message' }).fill('What time is it now?');
      await page.getByRole('button', { name: 'Send' }).click();
      const approval = page.getByRole('status', { name: 'Approval of get_current_datetime' });
      await approval.waitFor();
      expect(await approval.textContent()).toContain('"ask"');
      await approval.getByRole('button', { name: 'Approve', exact: true }).click();
      await page.getByText('Approved and answered.').waitFor();
      await approval.getByText('Approved', { exact: true }).waitFor();
    } finally {
      await setPermission(null);
    }
  }, 60_000);

  it('inspects a configured provider and diffs it against another wire format', async () => {
    await openPage(page, 'Inspector');
    await page.getByRole('combobox', { name: 'Provider' }).selectOption('fake');
    await page.getByRole('heading', { name: /tools for openai-chat/ }).waitFor();
    await page.getByRole('combobox', { name: 'Compare with' }).selectOption('openai');
    await page.getByRole('heading', { name: 'Differences between openai-chat and openai' }).waitFor();
    // Chat Completions never sends strict; the Responses API does for a strict-compatible schema.
    expect(await page.getByRole('cell', { name: 'strict differs' }).count()).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('inspector-diff') });
  });

  it('creates an agent whose tool selection the inspector applies', async () => {
    await openPage(page, 'Agents');
    const form = page.getByRole('form', { name: 'Create an agent' });
    await form.getByLabel('Name').fill('reader');
    await form.getByLabel('System prompt').fill('You only read files.');
    await form.getByRole('button', { name: 'Create agent' }).click();
    const card = page.getByRole('article', { name: 'reader' });
    await card.getByRole('button', { name: 'Edit reader' }).click();
    const editor = page.getByRole('form', { name: 'Edit reader' });
    await editor.getByLabel('System prompt').fill('You read files and say what they hold.');
    await editor.getByRole('button', { name: 'Save agent' }).click();
    await card.getByText('You read files and say what they hold.').waitFor();
    await card.getByRole('button', { name: 'Tools of reader' }).click();
    // A new agent gets every enabled tool; switching one off denies it to the agent only.
    const allow = card.getByRole('switch', { name: 'Allow get_current_datetime' });
    await page.waitForFunction(
      () =>
        document.querySelector<HTMLInputElement>('[aria-label="Allow get_current_datetime"]')?.checked ===
        true,
    );
    await allow.click();
    await page.waitForFunction(() => {
      const element = document.querySelector<HTMLInputElement>('[aria-label="Allow get_current_datetime"]');
      return element?.checked === false && !element.disabled;
    });
    await openPage(page, 'Inspector');
    await page.getByRole('cell', { name: 'get_current_datetime', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'reader' });
    await page
      .getByRole('cell', { name: 'get_current_datetime', exact: true })
      .waitFor({ state: 'detached' });
    expect(await page.getByRole('cell', { name: 'read_file', exact: true }).count()).toBe(1);
  });

  it("binds the agent to a chat on the Chats page, and the inspector follows the chat's agent", async () => {
    await openPage(page, 'Chats');
    await page.getByRole('button', { name: 'Edit Inspector' }).click();
    const editor = page.getByRole('form', { name: 'Edit Inspector' });
    await editor.getByLabel('Agent').selectOption({ label: 'reader' });
    await editor.getByRole('button', { name: 'Save chat' }).click();
    await page.getByRole('cell', { name: 'reader', exact: true }).waitFor();
    await openPage(page, 'Inspector');
    await page.getByRole('cell', { name: 'read_file', exact: true }).waitFor();
    expect(await page.getByRole('cell', { name: 'get_current_datetime', exact: true }).count()).toBe(0);
  });

  it('lists the playground and chat calls in the activity trail and filters it', async () => {
    await openPage(page, 'Activity');
    await page.getByRole('cell', { name: 'get_current_datetime', exact: true }).first().waitFor();
    await page.getByLabel('Outcome').fill('ok');
    await page.getByLabel('Tool name').fill('get_current_datetime');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page
      .getByRole('caption')
      .filter({ hasText: /^3 executions/ })
      .waitFor();
    // The playground run, the chat turn's call and the call approved in the chat (issue 16).
    const tools = await page.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(tools).toEqual(['get_current_datetime', 'get_current_datetime', 'get_current_datetime']);
  });

  it('edits an HTTP tool whose credential comes back masked and is kept when left masked', async () => {
    await openPage(page, 'HTTP tools');
    const form = page.getByRole('form', { name: 'Add an HTTP tool' });
    await form.getByLabel('Name').fill('weather');
    const config = {
      url: 'https://api.example.com/w/{{city}}',
      method: 'GET',
      description: 'The weather in a city.',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
      auth: { type: 'bearer', value: 'sk-http-tool-credential' },
    };
    await form.getByLabel('Configuration (JSON)').fill(JSON.stringify(config));
    await form.getByRole('button', { name: 'Add HTTP tool' }).click();
    const card = page.getByRole('article', { name: 'weather' });
    await card.waitFor();
    expect(await card.textContent()).toContain('"value": "***"');
    expect(await everythingThePageHolds(page)).not.toContain('sk-http-tool-credential');
    await card.getByRole('button', { name: 'Edit weather' }).click();
    const editor = page.getByRole('form', { name: 'Edit weather' });
    const text = await editor.getByLabel('Configuration (JSON)').inputValue();
    await editor.getByLabel('Configuration (JSON)').fill(text.replace('"GET"', '"POST"'));
    await editor.getByRole('button', { name: 'Save HTTP tool' }).click();
    await card.getByText('"method": "POST"').waitFor();
    expect(await everythingThePageHolds(page)).not.toContain('sk-http-tool-credential');
  });

  it('shows Connect snippets with the real /mcp URL and a placeholder, and copies the token only on request', async () => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await openPage(page, 'Connect');
    const remote = page.getByRole('region', { name: 'Remote (Streamable HTTP)' });
    const snippet = (await remote.getByLabel('Remote (Streamable HTTP) snippet').textContent()) ?? '';
    expect(snippet).toContain(`${server.url}/mcp`);
    expect(snippet).toContain('Bearer <YOUR_TOOLPORT_TOKEN>');
    expect(await page.locator('main').textContent()).not.toContain(server.token);
    await remote.getByRole('button', { name: 'Copy Remote (Streamable HTTP) with my token' }).click();
    await remote.getByText('Copied with your token.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`Bearer ${server.token}`);
    expect(await page.getByRole('region', { name: /stdio/ }).first().textContent()).toContain('"mcp"');
  });

  it('labels every control and takes a 1280×800 screenshot of every page', async () => {
    for (const link of NAV_LINKS) {
      await openPage(page, link);
      await page.waitForLoadState('networkidle');
      const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll('input, select, textarea, button, a[href]')]
          .filter((element) => {
            const control = element as HTMLInputElement;
            const hasLabel = (control.labels?.length ?? 0) > 0;
            const hasAria =
              control.getAttribute('aria-label') !== null || control.getAttribute('aria-labelledby') !== null;
            return !hasLabel && !hasAria && (control.textContent ?? '').trim() === '';
          })
          .map((element) => element.outerHTML.slice(0, 120)),
      );
      expect(unnamed, `unnamed controls on ${link}`).toEqual([]);
      await page.screenshot({ path: screenshotPath(`page-${link.toLowerCase().replace(/\s+/g, '-')}`) });
    }
  }, 90_000);

  it('works at phone width and follows the system theme', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openPage(page, 'Tools');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: screenshotPath('phone-tools') });
    await page.setViewportSize({ width: 1280, height: 800 });
    // The theme follows the system.
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).not.toBe(light);
    await page.screenshot({ path: screenshotPath('dark-tools') });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('signs in with a pasted token and shows a clear page once that token is revoked', async () => {
    const issued = await apiCall(server, 'POST', '/api/tokens', { label: 'ui test' });
    const token = issued.body.token as string;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tools' }).waitFor();
    const tokens = await apiCall(server, 'GET', '/api/tokens');
    const id = (tokens.body.tokens as { id: string; label: string }[]).find(
      (item) => item.label === 'ui test',
    )!.id;
    expect((await apiCall(server, 'DELETE', `/api/tokens/${id}`)).status).toBe(204);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Your token no longer works' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('toolport.token'))).toBeNull();
    await page.screenshot({ path: screenshotPath('login-revoked') });
  });
});
