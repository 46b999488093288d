import { ToolportError } from '../core/errors.ts';

/**
 * SPEC HTTP-1 templates, ours on purpose (seed 003 "Risco de injeção"): `{{name}}` placeholders, substituted in one
 * pass — a value that itself looks like `{{SECRET}}` is never expanded again — and encoded for the position it lands
 * in. Scheme, host and port are never templated (checked at create time by `http-tool-config.ts`).
 */
export const PLACEHOLDER_PATTERN = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}$/;

export function placeholderNames(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER_PATTERN)].map((match) => match[1]!);
}

/** The placeholder a string consists of entirely (`"{{count}}"`), if it does. */
export function wholePlaceholder(template: string): string | undefined {
  return WHOLE_PLACEHOLDER.exec(template)?.[1];
}

/** A template split once into literal text and placeholder names, so a call only joins (no regex per call). */
export interface CompiledText {
  parts: ReadonlyArray<string | { name: string }>;
  names: readonly string[];
  /** Set when the template has no placeholder. */
  literal: string | undefined;
}

export function compileText(template: string): CompiledText {
  const parts: Array<string | { name: string }> = [];
  const names: string[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER_PATTERN)) {
    if (match.index > last) parts.push(template.slice(last, match.index));
    parts.push({ name: match[1]! });
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return { parts, names, literal: names.length === 0 ? template : undefined };
}

/** Resolves a placeholder name to the value it stands for (an argument, or a secret in headers and auth). */
export type PlaceholderValues = (name: string) => unknown;

function invalidArgument(name: string, message: string): ToolportError {
  return new ToolportError('validation_failed', `Argument \`${name}\` ${message}`, {
    details: { argument: name },
  });
}

/** A scalar as text; objects and arrays cannot stand in a URL, a header or a form. */
function scalarText(name: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalidArgument(name, 'must be a string, number or boolean here (it is substituted into text).');
}

export function substitute(
  template: string | CompiledText,
  values: PlaceholderValues,
  encode: (text: string, name: string) => string,
): string {
  const compiled = typeof template === 'string' ? compileText(template) : template;
  if (compiled.literal !== undefined) return compiled.literal;
  let text = '';
  for (const part of compiled.parts) {
    text += typeof part === 'string' ? part : encode(scalarText(part.name, values(part.name)), part.name);
  }
  return text;
}

/** The URL template split where the rules differ: scheme + authority (literal), path, query, fragment. */
export interface UrlTemplateParts {
  origin: string;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

export function splitUrlTemplate(template: string): UrlTemplateParts | undefined {
  const schemeEnd = template.indexOf('://');
  if (schemeEnd <= 0) return undefined;
  const afterScheme = schemeEnd + 3;
  let authorityEnd = template.length;
  for (const stop of ['/', '?', '#']) {
    const index = template.indexOf(stop, afterScheme);
    if (index !== -1 && index < authorityEnd) authorityEnd = index;
  }
  const origin = template.slice(0, authorityEnd);
  let rest = template.slice(authorityEnd);
  let fragment: string | undefined;
  const hash = rest.indexOf('#');
  if (hash !== -1) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query: string | undefined;
  const question = rest.indexOf('?');
  if (question !== -1) {
    query = rest.slice(question + 1);
    rest = rest.slice(0, question);
  }
  return { origin, path: rest, query, fragment };
}

/** `.` and `..` segments (in any %2e spelling) are resolved away by URL parsers: a value must not become one. */
function isDotSegment(segment: string): boolean {
  return /^(?:\.|%2e){1,2}$/i.test(segment);
}

export interface CompiledUrl {
  origin: string;
  segments: readonly CompiledText[];
  query: ReadonlyArray<{ pair: CompiledText; lone: string | undefined }> | undefined;
  fragment: CompiledText | undefined;
}

export function compileUrl(template: string): CompiledUrl {
  const parts = splitUrlTemplate(template);
  if (parts === undefined) throw new ToolportError('validation_failed', 'The tool URL is not absolute.');
  return {
    origin: parts.origin,
    segments: parts.path.split('/').map(compileText),
    query: parts.query?.split('&').map((pair) => ({
      pair: compileText(pair),
      lone: pair.includes('=') ? wholePlaceholder(pair.slice(pair.indexOf('=') + 1)) : undefined,
    })),
    fragment: parts.fragment === undefined ? undefined : compileText(parts.fragment),
  };
}

const encodeComponent = (text: string): string => encodeURIComponent(text);

/**
 * The URL for one call. Each path placeholder becomes percent-encoded text inside its segment (`/`, `?`, `#`, `%`
 * encoded; a segment that would read as `.` or `..` is refused); each query placeholder an encoded value; a query pair
 * whose value is only the placeholder of an absent optional argument is left out.
 */
export function renderUrl(template: string | CompiledUrl, values: PlaceholderValues): string {
  const compiled = typeof template === 'string' ? compileUrl(template) : template;
  let url = compiled.origin;
  compiled.segments.forEach((segment, index) => {
    const rendered = substitute(segment, values, encodeComponent);
    if (segment.literal === undefined) {
      const name = segment.names[0]!;
      if (isDotSegment(rendered)) {
        throw invalidArgument(name, 'cannot be "." or ".." (it would climb out of its path segment).');
      }
      if (rendered === '') throw invalidArgument(name, 'is required: it fills a path segment.');
    }
    url += index === 0 ? rendered : `/${rendered}`;
  });
  if (compiled.query !== undefined) {
    let query = '';
    for (const { pair, lone } of compiled.query) {
      if (lone !== undefined) {
        const value = values(lone);
        if (value === undefined || value === null) continue;
      }
      query += `${query === '' ? '' : '&'}${substitute(pair, values, encodeComponent)}`;
    }
    if (query !== '') url += `?${query}`;
  }
  if (compiled.fragment !== undefined) url += `#${substitute(compiled.fragment, values, encodeComponent)}`;
  return url;
}

/** A header value: the substituted text must stay one line (CR, LF and NUL would split or end the header). */
export function renderHeaderValue(
  header: string,
  template: string | CompiledText,
  values: PlaceholderValues,
): string {
  const rendered = substitute(template, values, (text, name) => {
    if (/[\r\n\0]/.test(text)) {
      throw invalidArgument(name, `cannot contain line breaks: it is sent in the ${header} header.`);
    }
    return text;
  });
  return rendered;
}

/**
 * A JSON body template: the parsed document is walked; a string that is exactly `"{{name}}"` takes the argument's
 * typed value (an absent optional argument drops its member), a placeholder inside a longer string is replaced by
 * text and escaped by `JSON.stringify`. Nothing is ever concatenated into raw JSON.
 */
export function renderJsonBody(template: unknown, values: PlaceholderValues): string {
  const ABSENT = Symbol('absent');
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = wholePlaceholder(node);
      if (whole !== undefined) {
        const value = values(whole);
        return value === undefined ? ABSENT : value;
      }
      return substitute(node, values, (text) => text);
    }
    if (Array.isArray(node))
      return node.map((item) => {
        const value = walk(item);
        return value === ABSENT ? null : value;
      });
    if (typeof node === 'object' && node !== null) {
      const result: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(node)) {
        const value = walk(item);
        if (value !== ABSENT) result[key] = value;
      }
      return result;
    }
    return node;
  };
  const rendered = walk(template);
  return JSON.stringify(rendered === ABSENT ? null : rendered);
}

function formEncode(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+');
}

/** `a={{x}}&b=literal`: each placeholder form-encoded (so `&` and `=` in a value cannot add fields). */
export function renderFormBody(template: string | CompiledText, values: PlaceholderValues): string {
  return substitute(template, values, (text) => formEncode(text));
}

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export function renderXmlBody(template: string | CompiledText, values: PlaceholderValues): string {
  return substitute(template, values, (text) =>
    text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!),
  );
}

export function renderTextBody(template: string | CompiledText, values: PlaceholderValues): string {
  return substitute(template, values, (text) => text);
}
