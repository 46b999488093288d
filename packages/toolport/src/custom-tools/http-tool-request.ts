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
  placeholderNames,
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

/**
 * Renders a validated, opened config for one call: arguments fill their placeholders (encoded per position, one
 * pass); in headers and `auth.value` any other placeholder is the owner's secret, read through `secrets`.
 */
export async function renderHttpRequest(
  config: HttpToolConfig,
  args: ToolArguments,
  secrets: SecretReader | undefined,
): Promise<RenderedHttpRequest> {
  const parameters = parameterNames(config.parameters);
  const argumentValue: PlaceholderValues = (name) => (parameters.has(name) ? args[name] : undefined);
  const credentials: string[] = [];

  // Secrets are looked up before rendering so substitution itself stays synchronous and single-pass.
  const secretValues = new Map<string, string>();
  const credentialTemplates = [
    ...Object.entries(config.headers ?? {}),
    ...(config.auth === undefined ? [] : [['auth.value', config.auth.value] as const]),
  ];
  for (const [where, template] of credentialTemplates) {
    const plain = HTTP_TOOL_CREDENTIALS.plainKeys?.includes(where.toLowerCase()) ?? false;
    if (!isTemplateValue(template) && !plain) credentials.push(template);
    for (const name of placeholderNames(template)) {
      if (parameters.has(name) || secretValues.has(name)) continue;
      const value = await secrets?.getSecret(name);
      if (value === undefined) {
        throw new ToolportError(
          'not_found',
          `The HTTP tool's ${where === 'auth.value' ? '`auth.value`' : `${where} header`} refers to the secret ` +
            `{{${name}}}, which is not set. Add it in Settings → Secrets.`,
          { details: { secret: name } },
        );
      }
      secretValues.set(name, value);
      credentials.push(value);
    }
  }
  const headerValue: PlaceholderValues = (name) =>
    parameters.has(name) ? args[name] : secretValues.get(name);

  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(config.headers ?? {})) {
    const rendered = renderHeaderValue(name, template, headerValue);
    // A header made only of an absent optional argument is left out rather than sent empty.
    if (rendered !== '' || !isTemplateValue(template)) headers[name] = rendered;
  }
  if (config.auth !== undefined) {
    const value = renderHeaderValue('authorization', config.auth.value, headerValue);
    if (config.auth.type === 'bearer') headers.authorization = `Bearer ${value}`;
    else if (config.auth.type === 'basic') {
      const encoded = Buffer.from(value, 'utf8').toString('base64');
      headers.authorization = `Basic ${encoded}`;
      credentials.push(value);
    } else headers[config.auth.headerName ?? DEFAULT_API_KEY_HEADER] = value;
  }

  let body: string | undefined;
  if (config.body !== undefined) {
    const kind = bodyKind(config);
    if (kind === 'json') body = renderJsonBody(jsonBodyTemplate(config.body), argumentValue);
    else if (kind === 'form') body = renderFormBody(config.body as string, argumentValue);
    else if (kind === 'xml') body = renderXmlBody(config.body as string, argumentValue);
    else body = renderTextBody(config.body as string, argumentValue);
    if (contentTypeOf(headers) === undefined) headers['content-type'] = CONTENT_TYPES[kind];
  }

  return {
    method: config.method,
    url: renderUrl(config.url, argumentValue),
    headers,
    body,
    credentials: credentials.filter((value) => value.length > 0),
  };
}
