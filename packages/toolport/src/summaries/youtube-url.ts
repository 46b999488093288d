import { ToolArgumentError } from '../core/errors.ts';

const VIDEO_ID_PATTERN = /^[A-Za-z0-9_-]{11}$/;
const YOUTUBE_HOSTS = new Set([
  'youtube.com',
  'www.youtube.com',
  'm.youtube.com',
  'music.youtube.com',
  'youtube-nocookie.com',
  'www.youtube-nocookie.com',
]);
/** Path forms that carry the id as their second segment: /shorts/ID, /embed/ID, /live/ID. */
const ID_PATH_PREFIXES = new Set(['shorts', 'embed', 'live']);

const ACCEPTED_FORMS =
  'a YouTube video URL (youtube.com/watch?v=ID, youtu.be/ID, /shorts/ID, /embed/ID, /live/ID on youtube.com, ' +
  'www., m., music. or youtube-nocookie.com) or an 11-character video id';

/** YT-1: the video id from `videoId` or `url`, or a `validation_failed` naming the argument. */
export function parseYoutubeVideoId(args: { url?: string; videoId?: string }): string {
  if (args.videoId !== undefined) {
    if (VIDEO_ID_PATTERN.test(args.videoId)) return args.videoId;
    throw new ToolArgumentError('videoId', 'an 11-character YouTube video id', JSON.stringify(args.videoId));
  }
  if (args.url === undefined) {
    throw new ToolArgumentError(
      'url',
      ACCEPTED_FORMS,
      'nothing',
      'Pass `url` (a YouTube video URL) or `videoId`.',
    );
  }
  const id = videoIdFromUrl(args.url);
  if (id === undefined) throw new ToolArgumentError('url', ACCEPTED_FORMS, JSON.stringify(args.url));
  return id;
}

function videoIdFromUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const host = url.hostname.toLowerCase();
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  let id: string | null | undefined;
  if (host === 'youtu.be') id = segments.length === 1 ? segments[0] : undefined;
  else if (!YOUTUBE_HOSTS.has(host)) return undefined;
  else if (segments.length === 1 && segments[0] === 'watch') id = url.searchParams.get('v');
  else if (segments.length === 2 && ID_PATH_PREFIXES.has(segments[0]!)) id = segments[1];
  return id !== null && id !== undefined && VIDEO_ID_PATTERN.test(id) ? id : undefined;
}
