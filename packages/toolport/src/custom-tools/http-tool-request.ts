import { ToolportError } from '../core/errors.ts';
import type { SecretReader, ToolArguments } from '../core/tool-types.ts';
import { isTemplateValue } from '../credentials/config-credentials.ts';
import {
  bodyKind,
  contentTypeOf,
  DEFAULT_API_KEY_HEADER,
  HTTP_TOOL_CREDENTIALS,
  jsonBodyTemplate,
  parameterNames,
  type HttpToolConfig,
} from './http-tool-config.ts';
import {
  compileText,
  compileUrl,
  renderFormBody,
  renderHeaderValue,
  renderJsonBody,
  renderTextBody,
  renderUrl,
  renderXmlBody,
  type PlaceholderValues,
} from './http-tool-template.ts';

/** One call's request, exactly as it goes out, and the credential values in it (for redaction and masking). */
export interface RenderedHttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Every secret and literal credential the request carries, plaintext. */
  credentials: string[];
}

const CONTENT_TYPES = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  xml: 'application/xml',
  text: 'text/plain; charset=utf-8',
} as const;

export type HttpRequestRenderer = (
  args: ToolArguments,
  secrets: SecretReader | undefined,
) => Promise<RenderedHttpRequest>;

/**
 * Compiles a validated, opened config once (templates split, body kind and JSON template parsed) into the function
 * that renders one call: arguments fill their placeholders (encoded per position, one pass); in headers and
 * `auth.value` any other placeholder is the owner's secret, read through `secrets`.
 */
export function compileHttpRequest(config: HttpToolConfig): HttpRequestRenderer {
  const parameters = parameterNames(config.parameters);
  const url = compileUrl(config.url);
  const plainKeys = new Set(HTTP_TOOL_CREDENTIALS.plainKeys ?? []);
  const headers = Object.entries(config.headers ?? {}).map(([name, template]) => ({
    name,
    template: compileText(template),
    literalCredential:
      !isTemplateValue(template) && !plainKeys.has(name.toLowerCase()) ? template : undefined,
  }));
  const auth =
    config.auth === undefined
      ? undefined
      : {
          ...config.auth,
          template: compileText(config.auth.value),
          literalCredential: isTemplateValue(config.auth.value) ? undefined : config.auth.value,
        };
  const secretNames = [
    ...new Set(
      [...headers.map((header) => header.template), ...(auth === undefined ? [] : [auth.template])]
        .flatMap((template) => template.names)
        .filter((name) => !parameters.has(name)),
    ),
  ];
  const kind = config.body === undefined ? undefined : bodyKind(config);
  const jsonTemplate = kind === 'json' ? jsonBodyTemplate(config.body) : undefined;
  const textTemplate = kind !== undefined && kind !== 'json' ? compileText(config.body as string) : undefined;
  const declaresContentType = contentTypeOf(config.headers) !== undefined;

  return async (args, secrets) => {
    const argumentValue: PlaceholderValues = (name) => (parameters.has(name) ? args[name] : undefined);
    const credentials: string[] = [];
    // Secrets are looked up before rendering so substitution itself stays synchronous and single-pass.
    const secretValues = new Map<string, string>();
    for (const name of secretNames) {
      const value = await secrets?.getSecret(name);
      if (value === undefined) {
        throw new ToolportError(
          'not_found',
          `The HTTP tool refers to the secret {{${name}}} in a header or \`auth.value\`, which is not set. Add it in ` +
            'Settings → Secrets.',
          { details: { secret: name } },
        );
      }
      secretValues.set(name, value);
      credentials.push(value);
    }
    const headerValue: PlaceholderValues = (name) =>
      parameters.has(name) ? args[name] : secretValues.get(name);

    const rendered: Record<string, string> = {};
    for (const header of headers) {
      if (header.literalCredential !== undefined) credentials.push(header.literalCredential);
      const value = renderHeaderValue(header.name, header.template, headerValue);
      // A header made only of an absent optional argument is left out rather than sent empty.
      if (value !== '' || header.template.literal !== undefined) rendered[header.name] = value;
    }
    if (auth !== undefined) {
      if (auth.literalCredential !== undefined) credentials.push(auth.literalCredential);
      const value = renderHeaderValue('authorization', auth.template, headerValue);
      if (auth.type === 'bearer') rendered.authorization = `Bearer ${value}`;
      else if (auth.type === 'basic') {
        rendered.authorization = `Basic ${Buffer.from(value, 'utf8').toString('base64')}`;
        credentials.push(value);
      } else rendered[auth.headerName ?? DEFAULT_API_KEY_HEADER] = value;
    }

    let body: string | undefined;
    if (kind === 'json') body = renderJsonBody(jsonTemplate, argumentValue);
    else if (kind === 'form') body = renderFormBody(textTemplate!, argumentValue);
    else if (kind === 'xml') body = renderXmlBody(textTemplate!, argumentValue);
    else if (kind === 'text') body = renderTextBody(textTemplate!, argumentValue);
    if (kind !== undefined && !declaresContentType) rendered['content-type'] = CONTENT_TYPES[kind];

    return {
      method: config.method,
      url: renderUrl(url, argumentValue),
      headers: rendered,
      body,
      credentials: credentials.filter((value) => value.length > 0),
    };
  };
}

/** One-off rendering (the dry run): compiles and renders. */
export function renderHttpRequest(
  config: HttpToolConfig,
  args: ToolArguments,
  secrets: SecretReader | undefined,
): Promise<RenderedHttpRequest> {
  return compileHttpRequest(config)(args, secrets);
}
