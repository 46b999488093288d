import { describe, expect, it } from 'vitest';
import { isToolportError } from '../core/errors.ts';
import { decodeDocument, documentKindOf } from './decode-document.ts';
import { extractReadableText } from './readable-text.ts';
import { splitIntoChunks } from './summarize-text.ts';
import { extractAssignedJson, parseCaptionXml, pickCaptionTrack } from './youtube-client.ts';
import { parseYoutubeVideoId } from './youtube-url.ts';

describe('YT-1 video ids', () => {
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtube.com/watch?v=dQw4w9WgXcQ&t=42s&list=PL1', 'dQw4w9WgXcQ'],
    ['https://m.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://music.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ?si=abc', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/shorts/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/embed/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/live/dQw4w9WgXcQ?feature=share', 'dQw4w9WgXcQ'],
    ['youtu.be/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
  ])('reads %s', (url, id) => {
    expect(parseYoutubeVideoId({ url })).toBe(id);
  });

  it.each([
    'https://vimeo.com/12345678',
    'https://www.youtube.com/channel/UC1234567890',
    'https://www.youtube.com/watch?v=short',
    'https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ',
    'https://evilyoutube.com/watch?v=dQw4w9WgXcQ',
    'ftp://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com/shorts/dQw4w9WgXcQ/extra',
  ])('refuses %s as validation_failed naming url', (url) => {
    try {
      parseYoutubeVideoId({ url });
      expect.unreachable();
    } catch (error) {
      expect(isToolportError(error) && error.code).toBe('validation_failed');
      expect((error as { details: { argument: string } }).details.argument).toBe('url');
    }
  });

  it('takes a bare id and refuses a malformed one naming videoId', () => {
    expect(parseYoutubeVideoId({ videoId: 'dQw4w9WgXcQ' })).toBe('dQw4w9WgXcQ');
    expect(() => parseYoutubeVideoId({ videoId: '../etc/pass' })).toThrow(/videoId/);
    expect(() => parseYoutubeVideoId({})).toThrow(/url.*videoId/);
  });
});

describe('YT-1 player data and captions', () => {
  it('reads the player object even with braces inside strings and more script after it', () => {
    const html = 'x;var ytInitialPlayerResponse = {"a":"}{\\"","b":{"c":[1,2]}};var meta = {"no":1};';
    expect(extractAssignedJson(html, 'ytInitialPlayerResponse')).toEqual({ a: '}{"', b: { c: [1, 2] } });
    expect(extractAssignedJson('nothing here', 'ytInitialPlayerResponse')).toBeUndefined();
  });

  it('parses srv1 (double-escaped entities) and srv3 caption XML', () => {
    expect(
      parseCaptionXml(
        '<transcript><text start="1.5" dur="2">it&amp;#39;s &amp;quot;ok&amp;quot; &amp;amp; fine</text><text start="3">  </text></transcript>',
      ),
    ).toEqual([{ startSeconds: 1.5, text: 'it\'s "ok" & fine' }]);
    expect(parseCaptionXml('<timedtext><body><p t="2500" d="10">a <s>b</s></p></body></timedtext>')).toEqual([
      { startSeconds: 2.5, text: 'a b' },
    ]);
  });

  it('prefers manual tracks, then the preferred language, then its base language', () => {
    const tracks = [
      { baseUrl: '/a', languageCode: 'en', kind: 'asr', name: 'auto' },
      { baseUrl: '/b', languageCode: 'de', name: 'German' },
      { baseUrl: '/c', languageCode: 'pt-PT', name: 'Portuguese' },
    ];
    expect(pickCaptionTrack(tracks, 'en')?.baseUrl).toBe('/b');
    expect(pickCaptionTrack(tracks, 'pt-BR')?.baseUrl).toBe('/c');
    expect(pickCaptionTrack([tracks[0]!], 'pt')?.baseUrl).toBe('/a');
    expect(pickCaptionTrack([], 'en')).toBeUndefined();
  });
});

describe('WEB-1 decoding and extraction', () => {
  it('knows the three document kinds and nothing else', () => {
    expect(documentKindOf('text/html; charset=utf-8')).toBe('html');
    expect(documentKindOf('application/xhtml+xml')).toBe('xhtml');
    expect(documentKindOf('text/plain')).toBe('text');
    expect(documentKindOf('application/json')).toBeUndefined();
    expect(documentKindOf(undefined)).toBeUndefined();
  });

  it('decodes by header, BOM and meta, and a UTF-8 sequence cut by the byte cap', () => {
    expect(
      decodeDocument(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/html; charset=windows-1252').text,
    ).toBe('café');
    expect(decodeDocument(Buffer.from('\ufeffolá', 'utf8'), 'text/html').charset).toBe('utf-8');
    const cut = Buffer.from('ação', 'utf8').subarray(0, 4); // "aç" + half of "ã"
    expect(decodeDocument(cut, 'text/html', { cut: true })).toEqual({ text: 'aç', charset: 'utf-8' });
    // Not UTF-8 and nothing declared: the web's legacy default.
    expect(decodeDocument(Buffer.from([0x6f, 0x6c, 0xe1]), 'text/html')).toEqual({
      text: 'olá',
      charset: 'windows-1252',
    });
    // An unknown label is ignored, as browsers do.
    expect(decodeDocument(Buffer.from('ok'), 'text/html; charset=x-nonsense').text).toBe('ok');
  });

  it('takes the title from <title> when the page has no article title, and drops scripts from the fallback', () => {
    const page = extractReadableText(
      '<html><head><title>Only a title</title><script>var hidden = "SCRIPT";</script></head><body><div>Short text.</div></body></html>',
      'http://127.0.0.1/',
    );
    expect(page.title).toBe('Only a title');
    expect(page.text).toContain('Short text.');
    expect(page.text).not.toContain('SCRIPT');
  });

  it('splits long text at paragraph or sentence boundaries within the limit', () => {
    const text = Array.from({ length: 50 }, (_, index) => `Sentence ${index} is here.`).join(' ');
    const chunks = splitIntoChunks(text, 100);
    expect(chunks.every((chunk) => chunk.length <= 100)).toBe(true);
    expect(chunks.join(' ')).toBe(text);
    expect(chunks.every((chunk) => chunk.endsWith('.'))).toBe(true);
    expect(splitIntoChunks('short', 100)).toEqual(['short']);
  });
});
