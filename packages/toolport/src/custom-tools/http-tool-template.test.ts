import { describe, expect, it } from 'vitest';
import {
  renderFormBody,
  renderHeaderValue,
  renderJsonBody,
  renderTextBody,
  renderUrl,
  renderXmlBody,
} from './http-tool-template.ts';

const values = (table: Record<string, unknown>) => (name: string) => table[name];

describe('HTTP-1 templates', () => {
  it('a path placeholder is one encoded segment; a query placeholder one encoded value', () => {
    expect(
      renderUrl('https://h.test/a/{{id}}/b?x={{q}}', values({ id: 'x/../../y?z#f', q: 'a&b=c d' })),
    ).toBe('https://h.test/a/x%2F..%2F..%2Fy%3Fz%23f/b?x=a%26b%3Dc%20d');
    expect(renderUrl('https://h.test/{{id}}.json', values({ id: '.' }))).toBe('https://h.test/..json');
    for (const dots of ['.', '..']) {
      expect(() => renderUrl('https://h.test/a/{{id}}', values({ id: dots }))).toThrow(/cannot be/);
    }
    // A percent sign is data: `%2e%2e` is sent as `%252e%252e`, never decoded into a dot segment.
    expect(renderUrl('https://h.test/a/{{id}}', values({ id: '%2e%2e' }))).toBe(
      'https://h.test/a/%252e%252e',
    );
  });

  it('drops a query pair whose value is an absent optional argument; a required empty path segment is refused', () => {
    expect(renderUrl('https://h.test/s?a={{a}}&b={{b}}&c=1', values({ a: 1 }))).toBe(
      'https://h.test/s?a=1&c=1',
    );
    expect(() => renderUrl('https://h.test/s/{{id}}', values({}))).toThrow(/required/);
  });

  it('substitutes in one pass: an argument that looks like a placeholder stays literal', () => {
    expect(renderTextBody('hello {{name}}', values({ name: '{{SECRET}}', SECRET: 'leak' }))).toBe(
      'hello {{SECRET}}',
    );
  });

  it('a JSON template: an exact leaf takes the typed value, inside a string it is escaped, absent members drop', () => {
    const template = {
      n: '{{n}}',
      list: ['{{tags}}', '{{missing}}'],
      text: 'say "{{s}}"',
      gone: '{{missing}}',
      o: '{{o}}',
    };
    const rendered = renderJsonBody(
      template,
      values({ n: 7, tags: ['a'], s: '"}, "admin": true, {"', o: { k: 1 } }),
    );
    expect(JSON.parse(rendered)).toEqual({
      n: 7,
      list: [['a'], null],
      text: 'say ""}, "admin": true, {""',
      o: { k: 1 },
    });
  });

  it('form bodies encode each value (no field injection); XML bodies escape markup', () => {
    expect(renderFormBody('a={{a}}&b=2', values({ a: 'x&b=evil c' }))).toBe('a=x%26b%3Devil+c&b=2');
    expect(renderXmlBody('<q>{{q}}</q>', values({ q: '</q><admin/>' }))).toBe(
      '<q>&lt;/q&gt;&lt;admin/&gt;</q>',
    );
  });

  it('a header value cannot be split by CR/LF from an argument, and objects are not text', () => {
    expect(() => renderHeaderValue('X-A', '{{v}}', values({ v: 'a\r\nHost: evil' }))).toThrow(/line breaks/);
    expect(() => renderTextBody('{{v}}', values({ v: { a: 1 } }))).toThrow(/string, number or boolean/);
  });
});
