import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthMcpServer, type OAuthMcpServer } from '../mcp/oauth-mcp-server.ts';
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

/*
 * UI-1 x MCP-1 (issue 18 item 2: "the web UI gets a Connect button from these routes"): a remote MCP server behind
 * OAuth (the SDK's own authorization server on loopback, which approves at once as `ui-account`) shows
 * needs_authorization; Connect goes through the real authorization and callback pages in the browser and the server
 * then lists its tools; Forget authorization takes them away again.
 */
describe('UI-1 connecting an OAuth MCP server from the MCP servers page', { timeout: 90_000 }, () => {
  let remote: OAuthMcpServer;
  let server: ServeProcess;
  let browser: BrowserSession;
  let page: Page;

  beforeAll(async () => {
    assertBrowserPrerequisites();
    remote = await startOAuthMcpServer();
    remote.account = 'ui-account';
    // NET-1: the authorization server and the MCP endpoint are on loopback, which the operator allows here.
    server = await spawnServe({ TOOLPORT_OUTBOUND_ALLOW: '127.0.0.1/32' });
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(server.loginUrl);
    await page.getByRole('heading', { level: 2, name: 'Built-in', exact: true }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await remote?.close();
  });

  it('shows needs_authorization, connects through the authorization page and lists the tools; Forget undoes it', async () => {
    await openPage(page, 'MCP servers');
    const form = page.getByRole('form', { name: 'Add an MCP server' });
    await form.getByLabel('Name', { exact: true }).fill('notes');
    await form.getByRole('radio', { name: /Remote server/ }).check();
    await form.getByLabel('URL').fill(remote.url);
    // Protocol stays "auto": a 401 with OAuth metadata must not fall back to legacy SSE and read as a failure.
    await form.getByRole('button', { name: 'Add server' }).click();
    const card = page.getByRole('article', { name: /notes/ });
    await card.getByText('needs_authorization', { exact: true }).waitFor({ timeout: 30_000 });
    expect(remote.authorizations).toHaveLength(0);

    await card.getByRole('button', { name: 'Connect notes', exact: true }).click();
    // The authorization server approves at once and sends the browser to toolport's callback page.
    await page.getByRole('heading', { name: 'Authorized' }).waitFor({ timeout: 30_000 });
    expect(page.url()).toContain('/api/mcp-servers/oauth/callback');
    expect(remote.authorizations).toHaveLength(1);
    expect(await page.content()).not.toContain(remote.acceptedTokens[0] ?? 'no token yet');

    await page.goto(`${server.url}/mcp-servers`);
    const connected = page.getByRole('article', { name: /notes/ });
    await connected.getByText('connected', { exact: true }).waitFor({ timeout: 30_000 });
    await connected
      .getByRole('region', { name: 'Tools of notes' })
      .getByText('whoami', { exact: false })
      .first()
      .waitFor();
    await page.screenshot({ path: screenshotPath('mcp-servers-oauth-connected'), fullPage: false });
    // The stored tokens never reach the page or the API.
    const listed = await apiCall(server, 'GET', '/api/mcp-servers');
    for (const token of remote.acceptedTokens) {
      expect(JSON.stringify(listed.body)).not.toContain(token);
      expect(await page.content()).not.toContain(token);
    }

    await connected.getByRole('button', { name: 'Forget authorization of notes' }).click();
    await connected.getByText('needs_authorization', { exact: true }).waitFor({ timeout: 30_000 });
  });
});
