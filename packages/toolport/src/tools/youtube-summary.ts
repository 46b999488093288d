import { ToolportError } from '../core/errors.ts';
import { clampIntegerSetting, getStringSetting } from '../core/settings-policy.ts';
import { defineTool, type ToolContext } from '../core/tool-types.ts';
import { summarizeText } from '../summaries/summarize-text.ts';
import {
  fetchTranscript,
  fetchYoutubeVideo,
  pickCaptionTrack,
  youtubeOrigin,
  type TranscriptLine,
} from '../summaries/youtube-client.ts';
import { parseYoutubeVideoId } from '../summaries/youtube-url.ts';
import { SUMMARY_MODEL_DESCRIPTORS } from './web-page-summary.ts';

/** The text the model reads. */
export const YOUTUBE_SUMMARY_DESCRIPTION =
  'Summarizes a YouTube video from its captions (manual before automatic), or from its description when it has no ' +
  'transcript. Pass `url` (any youtube.com or youtu.be link) or `videoId`. Returns the title, the duration in ' +
  'seconds, the summary and whether it came from the transcript or the description.';

interface YoutubeSummaryArguments {
  url?: string;
  videoId?: string;
  focus?: string;
}

export interface YoutubeSummaryResult {
  videoId: string;
  title: string;
  summary: string;
  /** Seconds. */
  duration: number;
  source: 'transcript' | 'description';
  /** Why the description was used, when it was. */
  notice?: string;
}

export const youtubeSummaryTool = defineTool<YoutubeSummaryArguments>({
  definition: {
    name: 'youtube_summary',
    description: YOUTUBE_SUMMARY_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        url: {
          type: 'string',
          description:
            'A YouTube video URL, e.g. https://www.youtube.com/watch?v=dQw4w9WgXcQ or https://youtu.be/ID.',
        },
        videoId: { type: 'string', description: 'The 11-character video id, instead of `url`.' },
        focus: { type: 'string', description: 'What to look for in the video. Optional.' },
      },
      required: [],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'YouTube summary',
    description:
      'Lets the model summarize a YouTube video from its captions (or description) with one of your provider ' +
      'configurations.',
    category: 'interaction',
    enabledByDefault: false,
    canDisable: true,
    defaultParameters: {
      providerConfig: '',
      model: '',
      maxSummaryWords: 200,
      preferredLanguage: 'en',
      maxCharactersPerChunk: 20_000,
      timeoutSeconds: 120,
    },
    parameterDescriptors: [
      ...SUMMARY_MODEL_DESCRIPTORS,
      {
        name: 'preferredLanguage',
        title: 'Preferred caption language',
        type: 'string',
        description:
          'Language code of the caption track to prefer, e.g. en or pt-BR; other languages are used when it is missing.',
        default: 'en',
      },
      {
        name: 'maxCharactersPerChunk',
        title: 'Characters per chunk',
        type: 'integer',
        description: 'Longer transcripts are summarized in chunks of this size, then combined.',
        default: 20_000,
        minimum: 1_000,
        maximum: 200_000,
        unit: 'characters',
      },
      {
        name: 'timeoutSeconds',
        title: 'Time limit',
        type: 'integer',
        description: 'The whole call (pages, captions and every summary call) must finish within this time.',
        default: 120,
        minimum: 5,
        maximum: 600,
        unit: 'seconds',
      },
    ],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  execute: async (args, context) => summarizeVideo(args, context),
});

async function summarizeVideo(
  args: YoutubeSummaryArguments,
  context: ToolContext,
): Promise<YoutubeSummaryResult> {
  const videoId = parseYoutubeVideoId(args);
  const http = context.services.http;
  if (http === undefined) {
    throw new ToolportError(
      'execution_failed',
      'youtube_summary has no outbound HTTP client in this process (the host did not configure NET-1).',
    );
  }
  const origin = youtubeOrigin();
  const signal = context.signal;
  const video = await fetchYoutubeVideo(videoId, origin, http, signal);
  const parameters = context.settings.parameters;

  let transcript: TranscriptLine[] = [];
  let notice: string | undefined;
  const track = pickCaptionTrack(video.captionTracks, getStringSetting(parameters.preferredLanguage, 'en'));
  if (track === undefined) {
    notice =
      video.playability === undefined
        ? 'The video has no captions: summarized from its description.'
        : `YouTube does not play this video here (${video.playability.status}${
            video.playability.reason === undefined ? '' : `: ${video.playability.reason}`
          }): summarized from its description.`;
  } else {
    try {
      transcript = await fetchTranscript(track, origin, http, signal);
      if (transcript.length === 0) notice = 'The caption track was empty: summarized from the description.';
    } catch (error) {
      if (signal.aborted) throw error;
      notice = `The transcript could not be read (${(error as Error).message}): summarized from the description.`;
    }
  }

  const source = transcript.length > 0 ? 'transcript' : 'description';
  const text =
    source === 'transcript' ? transcript.map((line) => line.text).join('\n') : video.description.trim();
  if (text === '') {
    throw new ToolportError(
      'execution_failed',
      `The video ${videoId} has no usable transcript and no description: there is nothing to summarize.`,
      { details: { videoId } },
    );
  }
  const subject =
    source === 'transcript'
      ? `the transcript of the YouTube video "${video.title}"`
      : `the description of the YouTube video "${video.title}" (it has no usable transcript)`;
  const { summary } = await summarizeText({
    completion: context.services.textCompletion,
    subject,
    text,
    ...(args.focus === undefined ? {} : { focus: args.focus }),
    maxWords: clampIntegerSetting(parameters.maxSummaryWords, { minimum: 20, maximum: 2000, fallback: 200 }),
    maxCharactersPerChunk: clampIntegerSetting(parameters.maxCharactersPerChunk, {
      minimum: 1_000,
      maximum: 200_000,
      fallback: 20_000,
    }),
    partial: false,
    providerConfig: getStringSetting(parameters.providerConfig, ''),
    model: getStringSetting(parameters.model, ''),
    signal,
  });
  return {
    videoId,
    title: video.title,
    summary,
    duration: video.durationSeconds,
    source,
    ...(notice === undefined ? {} : { notice }),
  };
}
