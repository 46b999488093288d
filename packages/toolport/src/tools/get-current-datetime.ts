import { ToolArgumentError, ToolParameterError } from '../core/errors.ts';
import { getStringSetting } from '../core/settings-policy.ts';
import { defineTool } from '../core/tool-types.ts';

/** The text the model reads. */
export const GET_CURRENT_DATETIME_DESCRIPTION =
  'Returns the current date and time: UTC ISO timestamp, the local date-time formatted for a locale, and the UTC ' +
  'offset of the requested time zone. Use it whenever the answer depends on "now" or "today".';

interface GetCurrentDatetimeArguments {
  timezone?: string;
  locale?: string;
}

export interface CurrentDatetimeResult {
  /** UTC instant, e.g. 2026-11-29T20:16:46.000Z */
  utc: string;
  /** Wall-clock time in the zone with its offset, e.g. 2026-11-29T17:16:46-03:00 */
  local: string;
  /** Localized by Intl.DateTimeFormat, e.g. "29 de novembro de 2026 17:16:46" */
  localized: string;
  timezone: string;
  locale: string;
  /** e.g. -03:00, +00:00, +05:45 */
  offset: string;
}

/**
 * Intl.DateTimeFormat construction dominates this tool's cost (hundreds of µs): formatters are cached per zone and
 * locale. Bounded, since both come from model arguments.
 */
const formatterCache = new Map<string, Intl.DateTimeFormat>();
const MAX_CACHED_FORMATTERS = 500;

function cachedFormatter(
  kind: string,
  locale: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${kind}\u0000${locale}\u0000${options.timeZone ?? ''}`;
  let formatter = formatterCache.get(key);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat(locale, options);
    if (formatterCache.size >= MAX_CACHED_FORMATTERS) formatterCache.clear();
    formatterCache.set(key, formatter);
  }
  return formatter;
}

/**
 * Canonical zone and locale per input, memoized: `resolvedOptions()` and `Intl.getCanonicalLocales` allocate on every
 * call and were a third of the tool's time. Only valid inputs are kept (bounded like the formatters).
 */
const canonicalZones = new Map<string, string>();
const canonicalLocales = new Map<string, string>();

function remember(cache: Map<string, string>, input: string, canonical: string): string {
  if (cache.size >= MAX_CACHED_FORMATTERS) cache.clear();
  cache.set(input, canonical);
  return canonical;
}

/** The canonical name of an IANA zone, or undefined for an unknown one. */
function canonicalZone(timezone: string): string | undefined {
  const known = canonicalZones.get(timezone);
  if (known !== undefined) return known;
  try {
    const canonical = cachedFormatter('zone', 'en-US', { timeZone: timezone }).resolvedOptions().timeZone;
    return remember(canonicalZones, timezone, canonical);
  } catch {
    return undefined;
  }
}

/** The canonical form of a BCP 47 tag, or undefined for an invalid one. */
function canonicalLocale(locale: string): string | undefined {
  const known = canonicalLocales.get(locale);
  if (known !== undefined) return known;
  try {
    const [canonical] = Intl.getCanonicalLocales(locale);
    return canonical === undefined ? undefined : remember(canonicalLocales, locale, canonical);
  } catch {
    return undefined;
  }
}

function checkTimezone(timezone: string): string {
  const canonical = canonicalZone(timezone);
  if (canonical !== undefined) return canonical;
  throw new ToolArgumentError(
    'timezone',
    'an IANA time zone name such as "America/Sao_Paulo", "Europe/Lisbon" or "UTC"',
    JSON.stringify(timezone),
    `Unknown time zone ${JSON.stringify(timezone)} in \`timezone\`. Use an IANA name such as "America/Sao_Paulo", "Europe/Lisbon" or "UTC".`,
  );
}

function checkLocale(locale: string): string {
  const canonical = canonicalLocale(locale);
  if (canonical !== undefined) return canonical;
  throw new ToolArgumentError(
    'locale',
    'a BCP 47 language tag such as "pt-BR" or "en-US"',
    JSON.stringify(locale),
    `Invalid locale ${JSON.stringify(locale)} in \`locale\`. Use a BCP 47 tag such as "pt-BR" or "en-US".`,
  );
}

// The setting checks run on every call that names no zone/locale: memoized like the argument checks (issue 11 item 5).
const isTimeZone = (value: string): boolean => canonicalZone(value) !== undefined;
const isLocale = (value: string): boolean => canonicalLocale(value) !== undefined;

/** API-1/CORE-3: a stored default must mean something, or every later call fails blaming the model's argument. */
const TIMEZONE_SETTING_PROBLEM = (value: unknown): string | undefined =>
  typeof value === 'string' && isTimeZone(value)
    ? undefined
    : `${JSON.stringify(value)} is not an IANA time zone; use a name such as "America/Sao_Paulo", "Europe/Lisbon" or "UTC".`;
const LOCALE_SETTING_PROBLEM = (value: unknown): string | undefined =>
  typeof value === 'string' && isLocale(value)
    ? undefined
    : `${JSON.stringify(value)} is not a BCP 47 language tag; use one such as "pt-BR" or "en-US".`;

/** The model named no zone/locale, so a bad one is the setting's fault (stored before settings were validated). */
function settingError(setting: string, problem: string): ToolParameterError {
  return new ToolParameterError(
    setting,
    `Setting \`${setting}\` of get_current_datetime: ${problem} Fix it in the tool's settings.`,
  );
}

/** "+HH:MM" offset of `timezone` at `instant`. */
export function formatUtcOffset(instant: Date, timezone: string): string {
  const parts = cachedFormatter('offset', 'en-US', {
    timeZone: timezone,
    timeZoneName: 'longOffset',
  }).formatToParts(instant);
  const name = parts.find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  // "GMT" alone means a zero offset; otherwise "GMT-03:00" or "GMT+05:45".
  const match = /^GMT([+-]\d{2}):?(\d{2})?$/.exec(name);
  if (match === null) return '+00:00';
  return `${match[1]}:${match[2] ?? '00'}`;
}

function formatLocalIso(instant: Date, timezone: string, offset: string): string {
  const parts = cachedFormatter('iso', 'en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((entry) => entry.type === type)?.value ?? '00';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset}`;
}

/**
 * The formatted fields name whole seconds only (no fractional-second option), so within one second of the clock they
 * are the same for a zone and locale: under load, calls in the same second reuse them instead of formatting again.
 */
let formattedSecond = Number.NaN;
const formattedThisSecond = new Map<string, Pick<CurrentDatetimeResult, 'local' | 'localized' | 'offset'>>();

export function describeInstant(instant: Date, timezone: string, locale: string): CurrentDatetimeResult {
  const zone = checkTimezone(timezone);
  const language = checkLocale(locale);
  const second = Math.floor(instant.getTime() / 1000);
  if (second !== formattedSecond) {
    formattedSecond = second;
    formattedThisSecond.clear();
  }
  const key = `${zone}\u0000${language}`;
  let formatted = formattedThisSecond.get(key);
  if (formatted === undefined) {
    const offset = formatUtcOffset(instant, zone);
    formatted = {
      local: formatLocalIso(instant, zone, offset),
      localized: cachedFormatter('localized', language, {
        timeZone: zone,
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(instant),
      offset,
    };
    if (formattedThisSecond.size < MAX_CACHED_FORMATTERS) formattedThisSecond.set(key, formatted);
  }
  return {
    utc: instant.toISOString(),
    local: formatted.local,
    localized: formatted.localized,
    timezone: zone,
    locale: language,
    offset: formatted.offset,
  };
}

export const getCurrentDatetimeTool = defineTool<GetCurrentDatetimeArguments>({
  definition: {
    name: 'get_current_datetime',
    description: GET_CURRENT_DATETIME_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        timezone: {
          type: 'string',
          description:
            'IANA time zone, e.g. America/Sao_Paulo. Defaults to the configured default time zone.',
        },
        locale: {
          type: 'string',
          description:
            'BCP 47 locale for the localized string, e.g. pt-BR. Defaults to the configured locale.',
        },
      },
      required: [],
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Current date and time',
    description: 'Lets the model read the current date and time in any time zone.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { defaultTimezone: 'UTC', defaultLocale: 'en-US' },
    parameterDescriptors: [
      {
        name: 'defaultTimezone',
        title: 'Default time zone',
        type: 'string',
        description: 'IANA time zone used when the model names none.',
        default: 'UTC',
        format: 'time-zone',
      },
      {
        name: 'defaultLocale',
        title: 'Default locale',
        type: 'string',
        description: 'BCP 47 locale used when the model names none.',
        default: 'en-US',
        format: 'locale',
      },
    ],
    parameterValidators: { defaultTimezone: TIMEZONE_SETTING_PROBLEM, defaultLocale: LOCALE_SETTING_PROBLEM },
  },
  annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  execute: async (args, context) => {
    const timezone = args.timezone ?? getStringSetting(context.settings.parameters.defaultTimezone, 'UTC');
    const locale = args.locale ?? getStringSetting(context.settings.parameters.defaultLocale, 'en-US');
    if (args.timezone === undefined) {
      const problem = TIMEZONE_SETTING_PROBLEM(timezone);
      if (problem !== undefined) throw settingError('defaultTimezone', problem);
    }
    if (args.locale === undefined) {
      const problem = LOCALE_SETTING_PROBLEM(locale);
      if (problem !== undefined) throw settingError('defaultLocale', problem);
    }
    return describeInstant(new Date(), timezone, locale);
  },
});
