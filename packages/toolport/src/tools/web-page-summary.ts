import { ToolArgumentError, ToolportError } from '../core/errors.ts';
import { clampIntegerSetting, getStringSetting } from '../core/settings-policy.ts';
import {
  defineTool,
  type OutboundHttpClient,
  type OutboundHttpResponse,
  type ToolContext,
  type ToolParameterDescriptor,
} from '../core/tool-types.ts';
import { decodeDocument, documentKindOf } from '../summaries/decode-document.ts';
import { ROBOTS_USER_AGENT, RobotsPolicy } from '../summaries/robots-policy.ts';
import { summarizeText } from '../summaries/summarize-text.ts';
import { withBudget } from '../summaries/summary-budget.ts';

/** The text the model reads. */
export const WEB_PAGE_SUMMARY_DESCRIPTION =
  'Fetches a web page and returns a short summary of its readable text, with its title and final URL. Honours the ' +
  "site's robots.txt. Pass `focus` to say what to look for on the page. Use it to learn what a page says without " +
  'reading all of it.';

/** WEB-1: at most this many raw bytes of the page are read; the rest is cut (`truncated`). */
export const MAX_PAGE_BYTES = 500 * 1024;
/** WEB-1: one budget for robots.txt, the fetch, the extraction and the summary. */
export const WEB_PAGE_SUMMARY_BUDGET_MS = 15_000;
const MAX_REDIRECTS = 5;
/** Extracted text longer than this is summarized in parts (500 KB of HTML rarely has more readable text). */
const CHARACTERS_PER_CHUNK = 60_000;

interface WebPageSummaryArguments {
  url: string;
  focus?: string;
}

export interface WebPageSummaryResult {
  /** The final URL, after redirects. */
  url: string;
  title: string;
  summary: string;
  extractedAt: string;
  truncated: boolean;
}

/** Shared by every call: robots.txt is public per origin, so one cache serves every user. */
const robotsPolicy = new RobotsPolicy();

/** The settings both summary tools share (SPEC WEB-1/YT-1: which of the user's models summarizes). */
export const SUMMARY_MODEL_DESCRIPTORS: readonly ToolParameterDescriptor[] = [
  {
    name: 'providerConfig',
    title: 'Provider configuration',
    type: 'string',
    description:
      'The name of one of your provider configurations to summarize with; empty uses your first one.',
    default: '',
  },
  {
    name: 'model',
    title: 'Model',
    type: 'string',
    description: "The model to summarize with; empty uses the configuration's default model.",
    default: '',
  },
  {
    name: 'maxSummaryWords',
    title: 'Summary length',
    type: 'integer',
    description: 'The longest summary to ask the model for.',
    default: 200,
    minimum: 20,
    maximum: 2000,
    unit: 'words',
  },
];

export const webPageSummaryTool = defineTool<WebPageSummaryArguments>({
  definition: {
    name: 'web_page_summary',
    description: WEB_PAGE_SUMMARY_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        url: {
          type: 'string',
          description: 'The http(s) URL of the page, e.g. https://example.com/article.',
        },
        focus: {
          type: 'string',
          description: 'What to look for on the page, e.g. "pricing" or "the installation steps". Optional.',
        },
      },
      required: ['url'],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Web page summary',
    description:
      'Lets the model fetch a web page (robots.txt honoured, outbound policy applied, 500 KB read at most) and ' +
      'summarize it with one of your provider configurations.',
    category: 'interaction',
    // It spends the user's provider tokens and reaches the network: opted into, like generate_image.
    enabledByDefault: false,
    canDisable: true,
    defaultParameters: { providerConfig: '', model: '', maxSummaryWords: 200 },
    parameterDescriptors: SUMMARY_MODEL_DESCRIPTORS,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  execute: async (args, context) =>
    withBudget(context.signal, WEB_PAGE_SUMMARY_BUDGET_MS, 'web_page_summary', (signal) =>
      summarizeWebPage(args, context, signal),
    ),
});

async function summarizeWebPage(
  args: WebPageSummaryArguments,
  context: ToolContext,
  signal: AbortSignal,
): Promise<WebPageSummaryResult> {
  const http = context.services.http;
  if (http === undefined) {
    throw new ToolportError(
      'execution_failed',
      'web_page_summary has no outbound HTTP client in this process (the host did not configure NET-1).',
    );
  }
  const page = await fetchPage(checkedUrl(args.url), http, signal);
  const kind = documentKindOf(page.response.headers['content-type']);
  if (kind === undefined) {
    throw new ToolportError(
      'execution_failed',
      `${page.url} is ${page.response.headers['content-type'] ?? 'of an unknown type'}: web_page_summary reads ` +
        'HTML, XHTML and plain text pages only.',
      { details: { url: page.url, contentType: page.response.headers['content-type'] ?? null } },
    );
  }
  const { text: decoded } = decodeDocument(page.response.body, page.response.headers['content-type'], {
    cut: page.response.truncated,
  });
  // linkedom and Readability load on first use: every CLI command and server start registers this tool (issue 11).
  const { extractReadableText, normalizeParagraphs } = await import('../summaries/readable-text.ts');
  const document =
    kind === 'text'
      ? { title: '', text: normalizeParagraphs(decoded) }
      : extractReadableText(decoded, page.url);
  if (document.text === '') {
    throw new ToolportError('execution_failed', `${page.url} has no readable text to summarize.`, {
      details: { url: page.url },
    });
  }
  const parameters = context.settings.parameters;
  const { summary } = await summarizeText({
    completion: context.services.textCompletion,
    subject: `the web page ${document.title === '' ? '' : `"${document.title}" `}(${page.url})`,
    text: document.text,
    ...(args.focus === undefined ? {} : { focus: args.focus }),
    maxWords: clampIntegerSetting(parameters.maxSummaryWords, { minimum: 20, maximum: 2000, fallback: 200 }),
    maxCharactersPerChunk: CHARACTERS_PER_CHUNK,
    partial: page.response.truncated,
    providerConfig: getStringSetting(parameters.providerConfig, ''),
    model: getStringSetting(parameters.model, ''),
    signal,
  });
  return {
    url: page.url,
    title: document.title,
    summary,
    extractedAt: new Date().toISOString(),
    truncated: page.response.truncated,
  };
}

function checkedUrl(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ToolArgumentError(
      'url',
      'an absolute http(s) URL such as "https://example.com/page"',
      JSON.stringify(text),
    );
  }
  url.hash = '';
  return url;
}

/**
 * Follows redirects itself (at most 5) so that robots.txt is checked for every URL before it is requested, on every
 * origin a redirect leads to; NET-1 checks every hop's address at connect time.
 */
async function fetchPage(
  start: URL,
  http: OutboundHttpClient,
  signal: AbortSignal,
): Promise<{ url: string; response: OutboundHttpResponse }> {
  let url = start;
  for (let hop = 0; ; hop += 1) {
    await robotsPolicy.assertAllowed(url.href, http, signal);
    const response = await http.request(
      {
        url: url.href,
        headers: {
          'user-agent': ROBOTS_USER_AGENT,
          accept: 'text/html, application/xhtml+xml, text/plain;q=0.9, */*;q=0.1',
        },
        maxResponseBytes: MAX_PAGE_BYTES,
        followRedirects: false,
        // The call's budget (withBudget) governs; the request's own deadline sits past it so the two never race
        // and the caller always hears the budget's message.
        timeoutMs: WEB_PAGE_SUMMARY_BUDGET_MS + 1_000,
      },
      signal,
    );
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location !== undefined) {
      if (hop >= MAX_REDIRECTS) {
        throw new ToolportError(
          'execution_failed',
          `Too many redirects (more than ${MAX_REDIRECTS}) from ${start.href}.`,
        );
      }
      url = new URL(location, url);
      url.hash = '';
      continue;
    }
    if (response.status < 200 || response.status >= 300) {
      throw new ToolportError('execution_failed', `${url.href} answered HTTP ${response.status}.`, {
        details: { url: url.href, status: response.status },
      });
    }
    return { url: url.href, response };
  }
}
