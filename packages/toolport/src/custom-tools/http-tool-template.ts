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
  template: string,
  values: PlaceholderValues,
  encode: (text: string, name: string) => string,
): string {
  return template.replace(PLACEHOLDER_PATTERN, (_match, name: string) =>
    encode(scalarText(name, values(name)), name),
  );
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

/**
 * The URL for one call. Each path placeholder becomes percent-encoded text inside its segment (`/`, `?`, `#`, `%`
 * encoded; a segment that would read as `.` or `..` is refused); each query placeholder an encoded value; a query pair
 * whose value is only the placeholder of an absent optional argument is left out.
 */
export function renderUrl(template: string, values: PlaceholderValues): string {
  const parts = splitUrlTemplate(template);
  if (parts === undefined) throw new ToolportError('validation_failed', 'The tool URL is not absolute.');
  const path = parts.path
    .split('/')
    .map((segment) => {
      const rendered = substitute(segment, values, (text) => encodeURIComponent(text));
      if (rendered !== segment && isDotSegment(rendered)) {
        const name = placeholderNames(segment)[0] ?? 'path';
        throw invalidArgument(name, 'cannot be "." or ".." (it would climb out of its path segment).');
      }
      if (rendered === '' && segment !== '') {
        const name = placeholderNames(segment)[0] ?? 'path';
        throw invalidArgument(name, 'is required: it fills a path segment.');
      }
      return rendered;
    })
    .join('/');
  let url = `${parts.origin}${path}`;
  if (parts.query !== undefined) {
    const pairs = parts.query
      .split('&')
      .filter((pair) => {
        const value = pair.slice(pair.indexOf('=') + 1);
        const lone = pair.includes('=') ? wholePlaceholder(value) : undefined;
        return lone === undefined || (values(lone) !== undefined && values(lone) !== null);
      })
      .map((pair) => substitute(pair, values, (text) => encodeURIComponent(text)));
    if (pairs.length > 0) url += `?${pairs.join('&')}`;
  }
  if (parts.fragment !== undefined)
    url += `#${substitute(parts.fragment, values, (text) => encodeURIComponent(text))}`;
  return url;
}

/** A header value: the substituted text must stay one line (CR, LF and NUL would split or end the header). */
export function renderHeaderValue(header: string, template: string, values: PlaceholderValues): string {
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
export function renderFormBody(template: string, values: PlaceholderValues): string {
  return substitute(template, values, (text) => formEncode(text));
}

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export function renderXmlBody(template: string, values: PlaceholderValues): string {
  return substitute(template, values, (text) =>
    text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!),
  );
}

export function renderTextBody(template: string, values: PlaceholderValues): string {
  return substitute(template, values, (text) => text);
}
