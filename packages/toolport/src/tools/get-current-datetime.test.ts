import { describe, expect, it } from 'vitest';
import { executeTool } from '../core/execute-tool.ts';
import { ToolArgumentError } from '../core/errors.ts';
import { ToolRegistry } from '../core/tool-registry.ts';
import { describeInstant, formatUtcOffset } from './get-current-datetime.ts';
import { registerBuiltinTools } from './index.ts';

const instant = new Date('2026-01-15T12:34:56.000Z');

describe('DT-1 get_current_datetime', () => {
  it('returns UTC ISO, the local time with offset, and a localized string', () => {
    expect(describeInstant(instant, 'America/Sao_Paulo', 'pt-BR')).toEqual({
      utc: '2026-01-15T12:34:56.000Z',
      local: '2026-01-15T09:34:56-03:00',
      localized: new Intl.DateTimeFormat('pt-BR', {
        timeZone: 'America/Sao_Paulo',
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(instant),
      timezone: 'America/Sao_Paulo',
      locale: 'pt-BR',
      offset: '-03:00',
    });
  });

  it('never mixes up memoized fields across zones, locales, seconds or invalid inputs', () => {
    const fresh = (at: Date, zone: string, locale: string) =>
      new Intl.DateTimeFormat(locale, { timeZone: zone, dateStyle: 'full', timeStyle: 'long' }).format(at);
    const sameSecond = new Date('2026-01-15T12:34:56.999Z');
    const nextSecond = new Date('2026-01-15T12:34:57.001Z');
    for (const at of [instant, sameSecond, nextSecond, instant]) {
      for (const [zone, locale] of [
        ['America/Sao_Paulo', 'pt-BR'],
        ['Asia/Kathmandu', 'en-US'],
        ['America/Sao_Paulo', 'en-US'],
      ] as const) {
        const described = describeInstant(at, zone, locale);
        expect(described.utc).toBe(at.toISOString());
        expect(described.localized).toBe(fresh(at, zone, locale));
        expect(described.offset).toBe(formatUtcOffset(at, zone));
      }
    }
    expect(describeInstant(nextSecond, 'america/sao_paulo', 'PT-br')).toMatchObject({
      timezone: 'America/Sao_Paulo',
      locale: 'pt-BR',
      local: '2026-01-15T09:34:57-03:00',
    });
    // An invalid input is refused every time, not remembered as valid.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(() => describeInstant(instant, 'Mars/Olympus', 'en-US')).toThrow(ToolArgumentError);
      expect(() => describeInstant(instant, 'UTC', 'not a locale!')).toThrow(ToolArgumentError);
    }
  });

  it.each([
    ['UTC', '+00:00'],
    ['Asia/Kathmandu', '+05:45'],
    ['America/New_York', '-05:00'],
    ['Asia/Kolkata', '+05:30'],
  ])('formats the offset of %s as %s', (zone, offset) => {
    expect(formatUtcOffset(instant, zone)).toBe(offset);
  });

  it('follows daylight saving time', () => {
    expect(formatUtcOffset(new Date('2026-07-15T12:00:00Z'), 'Europe/Lisbon')).toBe('+01:00');
    expect(formatUtcOffset(new Date('2026-01-15T12:00:00Z'), 'Europe/Lisbon')).toBe('+00:00');
  });

  it('rejects an unknown time zone with a clear validation error', () => {
    expect(() => describeInstant(instant, 'Mars/Olympus_Mons', 'en-US')).toThrow(ToolArgumentError);
    expect(() => describeInstant(instant, 'Mars/Olympus_Mons', 'en-US')).toThrow(
      /Unknown time zone "Mars\/Olympus_Mons"/,
    );
  });

  it('reuses its formatters: a repeated zone and locale constructs no new Intl.DateTimeFormat', () => {
    describeInstant(instant, 'Europe/Berlin', 'de-DE');
    const original = Intl.DateTimeFormat;
    let constructed = 0;
    const counting = function (this: unknown, ...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      constructed += 1;
      return new original(...args);
    } as unknown as typeof Intl.DateTimeFormat;
    Intl.DateTimeFormat = counting;
    try {
      describeInstant(instant, 'Europe/Berlin', 'de-DE');
      expect(constructed).toBe(0);
      describeInstant(instant, 'Europe/Paris', 'fr-FR');
      expect(constructed).toBeGreaterThan(0);
    } finally {
      Intl.DateTimeFormat = original;
    }
  });

  it('rejects an invalid locale', () => {
    expect(() => describeInstant(instant, 'UTC', 'not a locale!')).toThrow(/Invalid locale/);
  });

  it('runs through executeTool with the default settings and the model-supplied arguments', async () => {
    const registry = registerBuiltinTools(new ToolRegistry());
    const before = Date.now();
    const outcome = await executeTool(
      { toolName: 'get_current_datetime', arguments: { timezone: null }, userId: 'u' },
      { registry },
    );
    if (!outcome.ok) throw new Error(outcome.output);
    const result = outcome.result as { utc: string; timezone: string; locale: string };
    expect(result.timezone).toBe('UTC');
    expect(result.locale).toBe('en-US');
    expect(Date.parse(result.utc)).toBeGreaterThanOrEqual(before - 1000);

    const failure = await executeTool(
      { toolName: 'get_current_datetime', arguments: { timezone: 'Nowhere/City' }, userId: 'u' },
      { registry },
    );
    expect(failure.ok || failure.error.code).toBe('validation_failed');
  });

  it('uses the configured default time zone and locale', async () => {
    const registry = registerBuiltinTools(new ToolRegistry());
    const outcome = await executeTool(
      {
        toolName: 'get_current_datetime',
        arguments: {},
        userId: 'u',
        savedSettings: { parameters: { defaultTimezone: 'Asia/Tokyo', defaultLocale: 'ja-JP' } },
      },
      { registry },
    );
    expect(outcome.ok && outcome.result).toMatchObject({
      timezone: 'Asia/Tokyo',
      locale: 'ja-JP',
      offset: '+09:00',
    });
  });
});
