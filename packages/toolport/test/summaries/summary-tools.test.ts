import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetch, type SafeFetch } from '../../src/net/safe-fetch.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { createTestDatabase, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';
import { SiteServer } from './site-server.ts';

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

type Json = Record<string, unknown>;

/**
 * WEB-1, YT-1 and API-1's summary routes end to end: a real server on SQLite, NET-1 with 127.0.0.1 allowlisted,
 * loopback sites serving recorded-shape fixtures, and the fake provider answering the summary calls through the
 * official OpenAI SDK (Chat Completions), as a chat turn would.
 */
describe('WEB-1 web_page_summary and YT-1 youtube_summary through the API', () => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let provider: FakeProviderServer;
  let safeFetch: SafeFetch;
  let alice: Awaited<ReturnType<typeof createTestUser>>;
  let bob: Awaited<ReturnType<typeof createTestUser>>;
  const sites: SiteServer[] = [];
  const previousOrigin = process.env.TOOLPORT_YOUTUBE_ORIGIN;

  /** Each scenario gets its own origin: robots.txt is cached per origin for the process. */
  const newSite = async (host = '127.0.0.1'): Promise<SiteServer> => {
    const site = await SiteServer.start(host);
    sites.push(site);
    return site;
  };

  const call = async (method: 'GET' | 'PUT' | 'POST', url: string, who: typeof alice, payload?: unknown) => {
    const response = await server.app.inject({
      method,
      url,
      headers: who.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() as Json };
  };

  /** The prompt text the summary call sent (the last user message of the latest Chat Completions request). */
  const lastPrompt = (): string => {
    const request = provider.requests.at(-1);
    const messages = (request?.body.messages ?? []) as Array<{ role: string; content: string }>;
    return messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
  };

  const answerWith = (text: string): void =>
    provider.enqueue('openai-chat', scriptStep('openai-chat', { text }));

  beforeAll(async () => {
    provider = await FakeProviderServer.start();
    safeFetch = createSafeFetch({ allowlist: { hosts: [], cidrs: ['127.0.0.1/32'] } });
    target = await createTestDatabase('sqlite');
    server = await startTestServer(await target.open(), {
      registry: createTestRegistry(),
      services: { http: safeFetch.client, providerMaxRetries: 0 },
    });
    alice = await createTestUser(server.services, 'alice');
    bob = await createTestUser(server.services, 'bob');
    const created = await call('POST', '/api/providers', alice, {
      name: 'local',
      provider: 'openai-chat',
      baseUrl: provider.baseURLFor('openai-chat'),
      defaultModel: 'summary-model',
    });
    expect(created.status).toBe(201);
    for (const who of [alice, bob]) {
      for (const tool of ['web_page_summary', 'youtube_summary']) {
        expect((await call('PUT', `/api/settings/tools/${tool}`, who, { enabled: true })).status).toBe(200);
      }
    }
  });

  afterAll(async () => {
    if (previousOrigin === undefined) delete process.env.TOOLPORT_YOUTUBE_ORIGIN;
    else process.env.TOOLPORT_YOUTUBE_ORIGIN = previousOrigin;
    await Promise.all(sites.map((site) => site.close()));
    await server?.close();
    await target?.dispose();
    await provider?.close();
    await safeFetch?.close();
  });

  describe('web_page_summary', () => {
    it('summarizes the readable text of a page with the configured model and returns url, title, summary, extractedAt', async () => {
      const site = await newSite();
      site.serve('/articles/tide-pools', 'text/html; charset=utf-8', fixture('article.html'));
      answerWith('Tide pools hold water and life between tides; visitors must stay on bare rock.');
      const before = Date.now();
      const response = await call('POST', '/api/tools/web-page-summary', alice, {
        url: `${site.url}/articles/tide-pools`,
        focus: 'rules for visitors',
      });
      expect(response.status).toBe(200);
      const result = response.body.result as Json;
      expect(result).toMatchObject({
        url: `${site.url}/articles/tide-pools`,
        title: 'Tide pools of the north coast',
        summary: 'Tide pools hold water and life between tides; visitors must stay on bare rock.',
        truncated: false,
      });
      expect(Date.parse(result.extractedAt as string)).toBeGreaterThanOrEqual(before - 1000);
      expect(result.extractedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const prompt = lastPrompt();
      expect(prompt).toContain('Sea anemones close into tight green buttons');
      expect(prompt).toContain('rules for visitors');
      expect(prompt).not.toContain('SCRIPT-TEXT-MUST-NOT-APPEAR');
      expect(provider.requests.at(-1)?.body.model).toBe('summary-model');
      // robots.txt first (a 404: no rules), then the page; both with the product token as user agent.
      expect(site.requests.map((request) => request.path)).toEqual(['/robots.txt', '/articles/tide-pools']);
      expect(site.requests.every((request) => request.headers['user-agent'] === 'toolport')).toBe(true);
    });

    it('uses the providerConfig and model settings when set', async () => {
      const site = await newSite();
      site.serve('/page', 'text/html', fixture('article.html'));
      expect(
        (
          await call('PUT', '/api/settings/tools/web_page_summary', alice, {
            parameters: { providerConfig: 'local', model: 'other-model', maxSummaryWords: 42 },
          })
        ).status,
      ).toBe(200);
      answerWith('Short.');
      const response = await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/page` });
      expect(response.status).toBe(200);
      expect(provider.requests.at(-1)?.body.model).toBe('other-model');
      expect(lastPrompt()).toContain('at most 42 words');
      await call('PUT', '/api/settings/tools/web_page_summary', alice, {
        parameters: { providerConfig: null, model: null, maxSummaryWords: null },
      });
    });

    it('refuses a page robots.txt disallows for toolport, naming robots.txt, without fetching it', async () => {
      const site = await newSite();
      site.serve(
        '/robots.txt',
        'text/plain',
        'User-agent: *\nAllow: /\n\nUser-agent: toolport\nDisallow: /private\n',
      );
      site.serve('/private/report', 'text/html', fixture('article.html'));
      site.serve('/public/report', 'text/html', fixture('article.html'));
      const refused = await call('POST', '/api/tools/web-page-summary', alice, {
        url: `${site.url}/private/report`,
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'permission_denied' });
      expect((refused.body.error as Json).message).toContain('robots.txt');
      expect(site.requested('/private/report')).toBe(0);
      // The toolport group applies, not `*`; a path it does not disallow is fine (robots.txt read once, cached).
      answerWith('Public.');
      expect(
        (await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/public/report` }))
          .status,
      ).toBe(200);
      expect(site.requested('/robots.txt')).toBe(1);
    });

    it('matches the * group when robots.txt has no toolport group', async () => {
      const site = await newSite();
      site.serve(
        '/robots.txt',
        'text/plain',
        'User-agent: otherbot\nAllow: /\n\nUser-agent: *\nDisallow: /\n',
      );
      site.serve('/anything', 'text/html', fixture('article.html'));
      const refused = await call('POST', '/api/tools/web-page-summary', alice, {
        url: `${site.url}/anything`,
      });
      expect(refused.status).toBe(403);
      expect(site.requested('/anything')).toBe(0);
    });

    it('treats a 5xx robots.txt as disallow-all (RFC 9309) and a 4xx one as allow-all', async () => {
      const broken = await newSite();
      broken.serve('/robots.txt', 'text/plain', 'down', 503);
      broken.serve('/page', 'text/html', fixture('article.html'));
      const refused = await call('POST', '/api/tools/web-page-summary', alice, { url: `${broken.url}/page` });
      expect(refused.status).toBe(403);
      expect((refused.body.error as Json).message).toMatch(/robots\.txt could not be read \(HTTP 503\)/);
      expect(broken.requested('/page')).toBe(0);

      const forbidden = await newSite();
      forbidden.serve('/robots.txt', 'text/plain', 'no', 403);
      forbidden.serve('/page', 'text/html', fixture('article.html'));
      answerWith('Allowed.');
      expect(
        (await call('POST', '/api/tools/web-page-summary', alice, { url: `${forbidden.url}/page` })).status,
      ).toBe(200);
    });

    it('checks robots.txt again on the origin a redirect leads to', async () => {
      const start = await newSite();
      const elsewhere = await newSite();
      elsewhere.serve('/robots.txt', 'text/plain', 'User-agent: *\nDisallow: /secret\n');
      elsewhere.serve('/secret', 'text/html', fixture('article.html'));
      start.route('/go', (_request, response) => {
        response.writeHead(302, { location: `${elsewhere.url}/secret` });
        response.end();
      });
      const refused = await call('POST', '/api/tools/web-page-summary', alice, { url: `${start.url}/go` });
      expect(refused.status).toBe(403);
      expect(elsewhere.requested('/robots.txt')).toBe(1);
      expect(elsewhere.requested('/secret')).toBe(0);
    });

    it('returns the final URL after redirects', async () => {
      const site = await newSite();
      site.route('/old', (_request, response) => {
        response.writeHead(301, { location: '/new' });
        response.end();
      });
      site.serve('/new', 'text/html', fixture('article.html'));
      answerWith('Moved page.');
      const response = await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/old` });
      expect(response.status).toBe(200);
      expect((response.body.result as Json).url).toBe(`${site.url}/new`);
    });

    it('cuts a 2 MB page at 500 KB of raw bytes, sets truncated and tells the model it saw a part', async () => {
      const site = await newSite();
      const paragraph = '<p>' + 'The tide returns faster than most people expect. '.repeat(20) + '</p>\n';
      const big = `<html><head><title>Long read</title></head><body><article>${paragraph.repeat(2_100)}</article></body></html>`;
      expect(big.length).toBeGreaterThan(2_000_000);
      site.serve('/long', 'text/html; charset=utf-8', big);
      // More than one chunk of text is possible; answer every summary call.
      for (let index = 0; index < 12; index += 1) answerWith(`Part summary ${index}.`);
      const calls = provider.requests.length;
      const response = await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/long` });
      expect(response.status).toBe(200);
      expect((response.body.result as Json).truncated).toBe(true);
      const prompts = provider.requests
        .slice(calls)
        .map(
          (request) =>
            ((request.body.messages ?? []) as Array<{ role: string; content: string }>).at(-1)?.content ?? '',
        );
      expect(prompts.at(-1)).toContain('Only the first part of the document could be read');
      const textSent = prompts.slice(0, -1).join('').length || prompts[0]!.length;
      expect(textSent).toBeLessThan(500 * 1024);
      // Drain what was not used, so later tests get their own answers.
      await drain();
    });

    it('decodes the charset named by a meta tag or by the Content-Type header', async () => {
      const site = await newSite();
      site.serve('/latin1', 'text/html', fixture('latin1.html'));
      site.serve('/sjis', 'text/html; charset=Shift_JIS', fixture('shift-jis.html'));
      answerWith('Resumo.');
      const latin = await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/latin1` });
      expect(latin.status).toBe(200);
      expect((latin.body.result as Json).title).toBe('Página em português');
      expect(lastPrompt()).toContain('Ação e coração');
      answerWith('要約。');
      const japanese = await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/sjis` });
      expect(japanese.status).toBe(200);
      expect((japanese.body.result as Json).title).toBe('日本語のページ');
    });

    it('falls back to the body text when Readability finds no article', async () => {
      const site = await newSite();
      site.serve('/board', 'text/html', fixture('no-article.html'));
      answerWith('Two lines, one delayed.');
      const response = await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/board` });
      expect(response.status).toBe(200);
      expect((response.body.result as Json).title).toBe('Station board');
      expect(lastPrompt()).toContain('Delayed 10 min');
    });

    it('reads plain text and refuses other content types', async () => {
      const site = await newSite();
      site.serve(
        '/notes.txt',
        'text/plain; charset=utf-8',
        'Plain notes about the tide: it comes back twice a day.',
      );
      site.serve('/file.pdf', 'application/pdf', Buffer.from('%PDF-1.7'));
      answerWith('Notes.');
      expect(
        (await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/notes.txt` })).status,
      ).toBe(200);
      expect(lastPrompt()).toContain('it comes back twice a day');
      const refused = await call('POST', '/api/tools/web-page-summary', alice, {
        url: `${site.url}/file.pdf`,
      });
      expect(refused.status).toBe(500);
      expect((refused.body.error as Json).message).toContain('HTML, XHTML and plain text');
    });

    it('refuses an address NET-1 blocks without contacting it', async () => {
      const canary = await newSite('127.0.0.2');
      canary.serve('/page', 'text/html', fixture('article.html'));
      const refused = await call('POST', '/api/tools/web-page-summary', alice, { url: `${canary.url}/page` });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'permission_denied' });
      expect(canary.requests).toHaveLength(0);
    });

    it('says how to configure a provider when the user has none', async () => {
      const site = await newSite();
      site.serve('/page', 'text/html', fixture('article.html'));
      const response = await call('POST', '/api/tools/web-page-summary', bob, { url: `${site.url}/page` });
      expect(response.status).toBe(500);
      expect((response.body.error as Json).message).toMatch(/POST \/api\/providers/);
      expect((response.body.error as Json).message).toContain('providerConfig');
    });

    it('rejects a URL that is not http(s) as validation_failed naming url', async () => {
      const response = await call('POST', '/api/tools/web-page-summary', alice, {
        url: 'ftp://example.com/x',
      });
      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ code: 'validation_failed' });
      expect((response.body.error as Json).message).toContain('url');
    });

    it('GET describes the tool and the caller’s settings', async () => {
      const described = await call('GET', '/api/tools/web-page-summary', alice);
      expect(described.status).toBe(200);
      expect(described.body).toMatchObject({
        name: 'web_page_summary',
        enabled: true,
        category: 'interaction',
      });
      const names = ((described.body.parameterDescriptors ?? []) as Json[]).map(
        (descriptor) => descriptor.name,
      );
      expect(names).toEqual(expect.arrayContaining(['providerConfig', 'model', 'maxSummaryWords']));
    });

    it('gives up after one 15 s budget for a page that never finishes', { timeout: 40_000 }, async () => {
      const site = await newSite();
      site.route('/slow', (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.write('<html><body><p>Starting');
        // Never ends: the budget must.
      });
      const started = Date.now();
      const response = await call('POST', '/api/tools/web-page-summary', alice, { url: `${site.url}/slow` });
      const elapsed = Date.now() - started;
      expect(response.status).toBe(504);
      expect(response.body.error).toMatchObject({ code: 'timeout' });
      expect((response.body.error as Json).message).toContain('15 s');
      expect(elapsed).toBeGreaterThanOrEqual(14_000);
    });
  });

  describe('youtube_summary', () => {
    let youtube: SiteServer;

    beforeAll(async () => {
      youtube = await newSite();
      process.env.TOOLPORT_YOUTUBE_ORIGIN = youtube.url;
      youtube.serve('/watch', 'text/html; charset=utf-8', fixture('watch-with-captions.html'));
      youtube.route('/api/timedtext', (request, response) => {
        const query = new URL(request.url ?? '/', 'http://x').searchParams;
        response.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' });
        if (query.get('lang') === 'pt-BR')
          response.end('<transcript><text start="0">Poças de maré na rocha.</text></transcript>');
        else if (query.get('kind') === 'asr')
          response.end('<transcript><text start="0">auto generated words</text></transcript>');
        else response.end(fixture('captions-en-srv1.xml'));
      });
    });

    it('summarizes the manual caption track in the preferred language and returns videoId, title, summary, duration', async () => {
      answerWith('A film about how tide pools work.');
      const response = await call('POST', '/api/tools/youtube-summary', alice, {
        url: 'https://youtu.be/dQw4w9WgXcQ',
      });
      expect(response.status).toBe(200);
      expect(response.body.result).toEqual({
        videoId: 'dQw4w9WgXcQ',
        title: 'How tide pools work',
        summary: 'A film about how tide pools work.',
        duration: 212,
        source: 'transcript',
      });
      const prompt = lastPrompt();
      expect(prompt).toContain('Anemones close when the tide goes out & keep water inside.');
      expect(prompt).toContain("it's how they grow");
      expect(prompt).not.toContain('auto generated words');
      const watch = youtube.requests.find((request) => request.path.startsWith('/watch'));
      expect(watch?.path).toContain('v=dQw4w9WgXcQ');
      expect(watch?.headers.cookie).toContain('CONSENT=YES');
      // The caption URL named www.youtube.com; it was resolved against the configured origin instead.
      expect(
        youtube.requests.some(
          (request) => request.path.startsWith('/api/timedtext') && request.path.includes('name=manual'),
        ),
      ).toBe(true);
    });

    it('prefers the configured caption language', async () => {
      await call('PUT', '/api/settings/tools/youtube_summary', alice, {
        parameters: { preferredLanguage: 'pt-BR' },
      });
      answerWith('Um filme sobre poças de maré.');
      const response = await call('POST', '/api/tools/youtube-summary', alice, { videoId: 'dQw4w9WgXcQ' });
      expect(response.status).toBe(200);
      expect(lastPrompt()).toContain('Poças de maré na rocha.');
      await call('PUT', '/api/settings/tools/youtube_summary', alice, {
        parameters: { preferredLanguage: null },
      });
    });

    it('falls back to the description when the video has no captions, and says so', async () => {
      const site = await newSite();
      process.env.TOOLPORT_YOUTUBE_ORIGIN = site.url;
      site.serve('/watch', 'text/html', fixture('watch-without-captions.html'));
      answerWith('Waves at dawn, no narration.');
      const response = await call('POST', '/api/tools/youtube-summary', alice, {
        url: 'https://www.youtube.com/watch?v=NoCaption01',
      });
      process.env.TOOLPORT_YOUTUBE_ORIGIN = youtube.url;
      expect(response.status).toBe(200);
      expect(response.body.result).toMatchObject({
        videoId: 'NoCaption01',
        title: 'Silent tide film',
        duration: 95,
        source: 'description',
      });
      expect((response.body.result as Json).notice).toContain('no captions');
      expect(lastPrompt()).toContain('no narration, only the sea');
    });

    it('falls back to the description when the caption track cannot be read', async () => {
      const site = await newSite();
      process.env.TOOLPORT_YOUTUBE_ORIGIN = site.url;
      site.serve('/watch', 'text/html', fixture('watch-with-captions.html'));
      site.serve('/api/timedtext', 'text/plain', 'blocked', 403);
      answerWith('From the description.');
      const response = await call('POST', '/api/tools/youtube-summary', alice, { videoId: 'dQw4w9WgXcQ' });
      process.env.TOOLPORT_YOUTUBE_ORIGIN = youtube.url;
      expect(response.status).toBe(200);
      expect(response.body.result).toMatchObject({ source: 'description' });
      expect((response.body.result as Json).notice).toContain('HTTP 403');
      expect(lastPrompt()).toContain('A short film about tide pools');
    });

    it('asks the player endpoint when the watch page embeds no player data', async () => {
      const site = await newSite();
      process.env.TOOLPORT_YOUTUBE_ORIGIN = site.url;
      site.serve('/watch', 'text/html', fixture('watch-without-player.html'));
      site.serve('/youtubei/v1/player', 'application/json', fixture('player-innertube.json'));
      site.serve('/api/timedtext', 'text/xml', fixture('captions-en-srv3.xml'));
      answerWith('Player endpoint summary.');
      const response = await call('POST', '/api/tools/youtube-summary', alice, {
        url: 'https://m.youtube.com/shorts/InnerTube01',
      });
      process.env.TOOLPORT_YOUTUBE_ORIGIN = youtube.url;
      expect(response.status).toBe(200);
      expect(response.body.result).toMatchObject({
        videoId: 'InnerTube01',
        duration: 61,
        source: 'transcript',
      });
      const player = site.requests.find((request) => request.path.startsWith('/youtubei/v1/player'));
      expect(player?.path).toContain('key=AIzaFixtureKey');
      expect(JSON.parse(player?.body ?? '{}')).toMatchObject({ videoId: 'InnerTube01' });
      expect(lastPrompt()).toContain('Anemones & crabs live there.');
    });

    it('summarizes a long transcript in chunks and combines the partial summaries', async () => {
      const site = await newSite();
      process.env.TOOLPORT_YOUTUBE_ORIGIN = site.url;
      site.serve('/watch', 'text/html', fixture('watch-with-captions.html'));
      const line = (index: number): string =>
        `<text start="${index}" dur="1">Sentence number ${index} about the tide and the rocks of the coast.</text>`;
      site.serve(
        '/api/timedtext',
        'text/xml',
        `<transcript>${Array.from({ length: 120 }, (_, index) => line(index)).join('')}</transcript>`,
      );
      await call('PUT', '/api/settings/tools/youtube_summary', alice, {
        parameters: { maxCharactersPerChunk: 2000 },
      });
      const before = provider.requests.length;
      for (let index = 0; index < 10; index += 1) answerWith(`Partial ${index}.`);
      const response = await call('POST', '/api/tools/youtube-summary', alice, { videoId: 'dQw4w9WgXcQ' });
      process.env.TOOLPORT_YOUTUBE_ORIGIN = youtube.url;
      await call('PUT', '/api/settings/tools/youtube_summary', alice, {
        parameters: { maxCharactersPerChunk: null },
      });
      expect(response.status).toBe(200);
      const made = provider.requests.length - before;
      // ~8,000 characters of transcript in 2,000-character chunks: 4-5 parts, then one call that combines them.
      expect(made).toBeGreaterThanOrEqual(5);
      expect(lastPrompt()).toMatch(/Combine them into one summary/);
      expect((response.body.result as Json).summary).toBe(`Partial ${made - 1}.`);
      await drain();
    });

    it('refuses a URL that is not a YouTube video as validation_failed', async () => {
      const response = await call('POST', '/api/tools/youtube-summary', alice, {
        url: 'https://vimeo.com/12345678',
      });
      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ code: 'validation_failed' });
      const neither = await call('POST', '/api/tools/youtube-summary', alice, {});
      expect(neither.status).toBe(422);
    });

    it('GET describes the tool with its settings', async () => {
      const described = await call('GET', '/api/tools/youtube-summary', alice);
      expect(described.status).toBe(200);
      const names = ((described.body.parameterDescriptors ?? []) as Json[]).map(
        (descriptor) => descriptor.name,
      );
      expect(names).toEqual(
        expect.arrayContaining([
          'providerConfig',
          'model',
          'maxSummaryWords',
          'preferredLanguage',
          'maxCharactersPerChunk',
        ]),
      );
    });
  });

  /** Consumes scripted answers a test queued but did not use, so the next test's answer is the next one served. */
  async function drain(): Promise<void> {
    while (provider.pending('openai-chat') > 0) {
      await fetch(`${provider.baseURLFor('openai-chat')}/chat/completions`, {
        method: 'POST',
        body: '{}',
      }).then((r) => r.text());
    }
  }
});
