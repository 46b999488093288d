import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

export interface ReadableDocument {
  title: string;
  text: string;
  /** `readability` when the article extractor found the main content, `body` when it fell back to all body text. */
  extractor: 'readability' | 'body';
}

/** Below this many characters Readability's article is likely navigation chrome: the body text is used instead. */
const MIN_ARTICLE_CHARACTERS = 200;

/**
 * WEB-1: the readable text of an HTML page — Readability on a linkedom DOM, falling back to the body's text (scripts,
 * styles and templates removed) when Readability fails or finds too little. Title: the article's, else `<title>`, else
 * `og:title`.
 */
export function extractReadableText(html: string, pageUrl: string): ReadableDocument {
  const { document } = parseHTML(html);
  // Read these before Readability, which mutates the document it parses.
  const titleElement = document.querySelector('title')?.textContent ?? '';
  const ogTitle = document.querySelector('meta[property="og:title"]')?.getAttribute('content') ?? '';
  const fallbackTitle = normalizeWhitespace(titleElement) || normalizeWhitespace(ogTitle);
  const bodyText = bodyTextOf(html);

  let article: { title?: string | null; textContent?: string | null } | null;
  try {
    setDocumentUrl(document, pageUrl);
    article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  } catch {
    article = null; // Readability throws on some malformed documents; the body text is the fallback.
  }
  const articleText = normalizeParagraphs(article?.textContent ?? '');
  const articleTitle = normalizeWhitespace(article?.title ?? '');
  if (
    articleText.length >= MIN_ARTICLE_CHARACTERS ||
    (articleText !== '' && bodyText.length <= articleText.length)
  ) {
    return { title: articleTitle || fallbackTitle, text: articleText, extractor: 'readability' };
  }
  return { title: fallbackTitle || articleTitle, text: bodyText, extractor: 'body' };
}

/** A fresh parse (Readability may have emptied the first document), without scripts, styles or templates. */
function bodyTextOf(html: string): string {
  const { document } = parseHTML(html);
  for (const element of document.querySelectorAll('script, style, noscript, template, svg')) element.remove();
  const root = document.body ?? document.documentElement;
  return normalizeParagraphs(root?.textContent ?? '');
}

/** Readability resolves relative links against `document.baseURI`; linkedom documents have none unless told. */
function setDocumentUrl(document: object, pageUrl: string): void {
  try {
    Object.defineProperty(document, 'baseURI', { value: pageUrl, configurable: true });
    Object.defineProperty(document, 'documentURI', { value: pageUrl, configurable: true });
  } catch {
    // Not writable on this DOM: links stay relative, which the summary does not need.
  }
}

export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Collapses runs of spaces inside lines and of blank lines between them. */
export function normalizeParagraphs(text: string): string {
  return text
    .split(/\n/)
    .map((line) => line.replace(/[ \t\f\v\r\u00a0]+/g, ' ').trim())
    .filter((line, index, lines) => line !== '' || (index > 0 && lines[index - 1] !== ''))
    .join('\n')
    .trim();
}
