import { ToolportError } from '../core/errors.ts';
import type { OutboundHttpClient } from '../core/tool-types.ts';

/**
 * YT-1: a small YouTube client of our own, over NET-1: the watch page (with a consent cookie, so EU requests are not
 * sent to a consent wall) → the player data it embeds (or, when the page embeds none, the InnerTube player endpoint
 * with the page's key) → the caption track's XML. Third-party transcript packages break every few months when
 * YouTube changes a detail; this one is small and every step is covered by recorded fixtures.
 */

export const DEFAULT_YOUTUBE_ORIGIN = 'https://www.youtube.com';
const CONSENT_COOKIE = 'CONSENT=YES+cb; SOCS=CAI';
const BROWSER_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
const MAX_PAGE_BYTES = 8 * 1024 * 1024;
const MAX_CAPTION_BYTES = 4 * 1024 * 1024;
/** The InnerTube web client the player endpoint is asked as, when the watch page embeds no player data. */
const INNERTUBE_CLIENT = { clientName: 'WEB', clientVersion: '2.20241126.01.00', hl: 'en' };

export interface CaptionTrack {
  baseUrl: string;
  languageCode: string;
  /** `asr` for automatic captions. */
  kind?: string;
  name: string;
}

export interface YoutubeVideo {
  videoId: string;
  title: string;
  description: string;
  durationSeconds: number;
  captionTracks: CaptionTrack[];
  /** Why the video cannot be played here, when YouTube says so (`LOGIN_REQUIRED`, `ERROR` …). */
  playability?: { status: string; reason?: string };
}

export interface TranscriptLine {
  startSeconds: number;
  text: string;
}

/** The origin captions and API URLs are resolved against: `TOOLPORT_YOUTUBE_ORIGIN`, else the public site. */
export function youtubeOrigin(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment.TOOLPORT_YOUTUBE_ORIGIN?.trim();
  if (configured === undefined || configured === '') return DEFAULT_YOUTUBE_ORIGIN;
  try {
    return new URL(configured).origin;
  } catch {
    throw new ToolportError(
      'execution_failed',
      `TOOLPORT_YOUTUBE_ORIGIN is not a URL (${JSON.stringify(configured)}): set it to an origin such as https://www.youtube.com.`,
    );
  }
}

export async function fetchYoutubeVideo(
  videoId: string,
  origin: string,
  http: OutboundHttpClient,
  signal: AbortSignal,
): Promise<YoutubeVideo> {
  const watchUrl = `${origin}/watch?v=${encodeURIComponent(videoId)}&hl=en`;
  const page = await http.request(
    {
      url: watchUrl,
      headers: { cookie: CONSENT_COOKIE, 'user-agent': BROWSER_USER_AGENT, 'accept-language': 'en' },
      maxResponseBytes: MAX_PAGE_BYTES,
    },
    signal,
  );
  if (page.status === 404) {
    throw new ToolportError('not_found', `YouTube has no video ${videoId}.`, { details: { videoId } });
  }
  if (page.status < 200 || page.status >= 300) {
    throw new ToolportError('execution_failed', `The YouTube watch page answered HTTP ${page.status}.`, {
      details: { videoId, status: page.status },
    });
  }
  const html = new TextDecoder('utf-8').decode(page.body);
  let player = extractAssignedJson(html, 'ytInitialPlayerResponse');
  if (player === undefined) {
    const apiKey = /"INNERTUBE_API_KEY"\s*:\s*"([^"]+)"/.exec(html)?.[1];
    if (apiKey === undefined) {
      throw new ToolportError(
        'execution_failed',
        `The YouTube watch page of ${videoId} carries no player data (YouTube may have changed its page format).`,
        { details: { videoId } },
      );
    }
    player = await fetchPlayerData(videoId, origin, apiKey, http, signal);
  }
  return toVideo(videoId, player);
}

async function fetchPlayerData(
  videoId: string,
  origin: string,
  apiKey: string,
  http: OutboundHttpClient,
  signal: AbortSignal,
): Promise<unknown> {
  const response = await http.request(
    {
      url: `${origin}/youtubei/v1/player?key=${encodeURIComponent(apiKey)}&prettyPrint=false`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: CONSENT_COOKIE,
        'user-agent': BROWSER_USER_AGENT,
      },
      body: JSON.stringify({ context: { client: INNERTUBE_CLIENT }, videoId }),
      maxResponseBytes: MAX_PAGE_BYTES,
    },
    signal,
  );
  if (response.status < 200 || response.status >= 300) {
    throw new ToolportError(
      'execution_failed',
      `The YouTube player endpoint answered HTTP ${response.status}.`,
      {
        details: { videoId, status: response.status },
      },
    );
  }
  try {
    return JSON.parse(new TextDecoder('utf-8').decode(response.body)) as unknown;
  } catch {
    throw new ToolportError(
      'execution_failed',
      'The YouTube player endpoint answered something that is not JSON.',
    );
  }
}

/** Manual tracks before automatic ones; within each, the preferred language, then its base language, then any. */
export function pickCaptionTrack(
  tracks: readonly CaptionTrack[],
  preferredLanguage: string,
): CaptionTrack | undefined {
  const preferred = preferredLanguage.trim().toLowerCase();
  const base = preferred.split('-')[0] ?? preferred;
  const rank = (track: CaptionTrack): number => {
    const language = track.languageCode.toLowerCase();
    const languageRank = language === preferred ? 0 : language.split('-')[0] === base ? 1 : 2;
    return (track.kind === 'asr' ? 3 : 0) + languageRank;
  };
  return [...tracks].sort((a, b) => rank(a) - rank(b))[0];
}

export async function fetchTranscript(
  track: CaptionTrack,
  origin: string,
  http: OutboundHttpClient,
  signal: AbortSignal,
): Promise<TranscriptLine[]> {
  // Caption URLs are resolved against the configured origin, so a mirror (or a test server) serves them too.
  const given = new URL(track.baseUrl, origin);
  const url = new URL(`${given.pathname}${given.search}`, origin);
  const response = await http.request(
    {
      url: url.href,
      headers: { cookie: CONSENT_COOKIE, 'user-agent': BROWSER_USER_AGENT },
      maxResponseBytes: MAX_CAPTION_BYTES,
    },
    signal,
  );
  if (response.status < 200 || response.status >= 300) {
    throw new ToolportError('execution_failed', `The caption track answered HTTP ${response.status}.`, {
      details: { status: response.status },
    });
  }
  return parseCaptionXml(new TextDecoder('utf-8').decode(response.body));
}

/** Both caption formats YouTube serves: srv1 (`<text start dur>`) and srv3 (`<p t d>`, milliseconds). */
export function parseCaptionXml(xml: string): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  const srv1 = /<text\b([^>]*)>([\s\S]*?)<\/text>/g;
  for (const match of xml.matchAll(srv1)) {
    const start = /\bstart="([\d.]+)"/.exec(match[1]!)?.[1];
    pushLine(lines, start === undefined ? 0 : Number(start), match[2]!);
  }
  if (lines.length > 0) return lines;
  const srv3 = /<p\b([^>]*)>([\s\S]*?)<\/p>/g;
  for (const match of xml.matchAll(srv3)) {
    const start = /\bt="(\d+)"/.exec(match[1]!)?.[1];
    pushLine(lines, start === undefined ? 0 : Number(start) / 1000, match[2]!);
  }
  return lines;
}

function pushLine(lines: TranscriptLine[], startSeconds: number, markup: string): void {
  // srv1 text is entity-escaped twice (`&amp;#39;`): decode until it stops changing.
  let text = markup.replace(/<[^>]+>/g, '');
  for (let pass = 0; pass < 3; pass += 1) {
    const decoded = decodeXmlEntities(text);
    if (decoded === text) break;
    text = decoded;
  }
  text = text
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text !== '') lines.push({ startSeconds, text });
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

function decodeXmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X'))
      return safeCodePoint(Number.parseInt(name.slice(2), 16), entity);
    if (name.startsWith('#')) return safeCodePoint(Number.parseInt(name.slice(1), 10), entity);
    return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
  });
}

function safeCodePoint(code: number, fallback: string): string {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : fallback;
}

/**
 * The JSON object assigned to `name` in the page's scripts (`var ytInitialPlayerResponse = {...};`), read by
 * matching braces outside strings — the object is followed by more script on the same line, so a regex cannot
 * find its end.
 */
export function extractAssignedJson(html: string, name: string): unknown {
  const assignment = new RegExp(`${name}\\s*=\\s*\\{`).exec(html);
  if (assignment === null) return undefined;
  const start = assignment.index + assignment[0].length - 1;
  let depth = 0;
  let inString = false;
  for (let index = start; index < html.length; index += 1) {
    const char = html[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) {
        try {
          return JSON.parse(html.slice(start, index + 1)) as unknown;
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

function toVideo(videoId: string, player: unknown): YoutubeVideo {
  const data = asRecord(player);
  const details = asRecord(data.videoDetails);
  const microformat = asRecord(asRecord(data.microformat).playerMicroformatRenderer);
  const playability = asRecord(data.playabilityStatus);
  const tracks = asArray(asRecord(asRecord(data.captions).playerCaptionsTracklistRenderer).captionTracks);
  const status = typeof playability.status === 'string' ? playability.status : undefined;
  return {
    videoId,
    title: textOf(details.title) || textOf(microformat.title),
    description: textOf(details.shortDescription) || textOf(microformat.description),
    durationSeconds: Number(details.lengthSeconds ?? microformat.lengthSeconds ?? 0) || 0,
    captionTracks: tracks.flatMap((entry) => {
      const track = asRecord(entry);
      if (typeof track.baseUrl !== 'string' || typeof track.languageCode !== 'string') return [];
      return [
        {
          baseUrl: track.baseUrl,
          languageCode: track.languageCode,
          ...(typeof track.kind === 'string' ? { kind: track.kind } : {}),
          name: textOf(track.name),
        },
      ];
    }),
    ...(status === undefined || status === 'OK'
      ? {}
      : {
          playability: {
            status,
            ...(typeof playability.reason === 'string' ? { reason: playability.reason } : {}),
          },
        }),
  };
}

/** `"text"`, `{simpleText}` or `{runs: [{text}]}`, as YouTube writes its strings. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const record = asRecord(value);
  if (typeof record.simpleText === 'string') return record.simpleText;
  return asArray(record.runs)
    .map((run) => asRecord(run).text)
    .filter((text): text is string => typeof text === 'string')
    .join('');
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
