import type { JsonSchema } from '../core/tool-types.ts';

/**
 * HTTP-1 beyond the seed: one HTTP tool per OpenAPI operation. Pure: receives a document whose internal `$ref`s are
 * already resolved (`services/http-tool-import.ts`), returns the planned configs and, for every operation that cannot
 * be represented, the reason — nothing is dropped silently.
 */
export interface PlannedHttpTool {
  operation: string;
  name: string;
  config: Record<string, unknown>;
}

export interface SkippedOperation {
  operation: string;
  reason: string;
}

type Doc = Record<string, unknown>;

const SUPPORTED_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const OTHER_METHODS = ['head', 'options', 'trace'] as const;
const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const MAX_NAME = 64;

function isRecord(value: unknown): value is Doc {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Unrepresentable extends Error {}

function sanitizeName(text: string): string {
  const cleaned = text
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (cleaned === '' ? 'operation' : cleaned).slice(0, MAX_NAME);
}

/** A unique name within 64 characters: `base`, then `base_2`, `base_3` … with the base shortened to fit. */
export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let counter = 2; taken.has(name); counter += 1) {
    const suffix = `_${counter}`;
    name = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
  }
  taken.add(name);
  return name;
}

function secretName(text: string): string {
  const name = text
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^[^A-Za-z_]+/, '')
    .toUpperCase();
  return name === '' ? 'API_KEY' : name;
}

/** The base URL: OpenAPI 3 `servers[0]` (variables at their defaults) or Swagger 2 `schemes`/`host`/`basePath`. */
function serverUrl(doc: Doc, servers: unknown, documentUrl: string | undefined): string | undefined {
  const list = Array.isArray(servers) && servers.length > 0 ? servers : doc.servers;
  let url: string | undefined;
  if (Array.isArray(list) && isRecord(list[0]) && typeof list[0].url === 'string') {
    const server = list[0];
    url = (server.url as string).replace(/\{([^}]+)\}/g, (match, name: string) => {
      const variable = isRecord(server.variables) ? server.variables[name] : undefined;
      return isRecord(variable) && typeof variable.default === 'string' ? variable.default : match;
    });
  } else if (typeof doc.swagger === 'string' && typeof doc.host === 'string') {
    const scheme =
      Array.isArray(doc.schemes) && doc.schemes.includes('https')
        ? 'https'
        : ((doc.schemes as string[] | undefined)?.[0] ?? 'https');
    url = `${scheme}://${doc.host}${typeof doc.basePath === 'string' ? doc.basePath : ''}`;
  } else if (typeof doc.openapi === 'string') {
    url = '/'; // OpenAPI 3: no `servers` means the document's own location.
  }
  if (url === undefined) return undefined;
  try {
    const absolute = new URL(url, documentUrl);
    return absolute.href.replace(/\/$/, '');
  } catch {
    return undefined;
  }
}

interface ParameterSpec {
  name: string;
  location: 'path' | 'query' | 'header';
  schema: JsonSchema;
  required: boolean;
}

function readParameters(pathItem: Doc, operation: Doc): ParameterSpec[] {
  const byKey = new Map<string, Doc>();
  for (const source of [pathItem.parameters, operation.parameters]) {
    if (!Array.isArray(source)) continue;
    for (const parameter of source) {
      if (isRecord(parameter) && typeof parameter.name === 'string')
        byKey.set(`${String(parameter.in)}:${parameter.name}`, parameter);
    }
  }
  const specs: ParameterSpec[] = [];
  for (const parameter of byKey.values()) {
    const name = parameter.name as string;
    const location = parameter.in;
    if (location === 'cookie')
      throw new Unrepresentable(`cookie parameter ${name} cannot be sent by an HTTP tool`);
    if (location === 'body' || location === 'formData') continue; // Swagger 2: read as the body below.
    if (location !== 'path' && location !== 'query' && location !== 'header') {
      throw new Unrepresentable(`parameter ${name} has an unknown location ${String(location)}`);
    }
    if (!PLACEHOLDER_NAME.test(name))
      throw new Unrepresentable(`parameter name ${JSON.stringify(name)} cannot be a placeholder`);
    const schema: JsonSchema = isRecord(parameter.schema)
      ? { ...parameter.schema }
      : typeof parameter.type === 'string'
        ? { type: parameter.type }
        : { type: 'string' };
    if (typeof parameter.description === 'string') schema.description = parameter.description;
    specs.push({ name, location, schema, required: location === 'path' || parameter.required === true });
  }
  return specs;
}

interface BodySpec {
  contentType: string;
  properties: Record<string, JsonSchema>;
  required: string[];
  /** The JSON template or form template. */
  template: unknown;
}

function readBody(operation: Doc, taken: Set<string>): BodySpec | undefined {
  let content: Doc | undefined;
  let required = false;
  if (isRecord(operation.requestBody)) {
    content = isRecord(operation.requestBody.content) ? operation.requestBody.content : undefined;
    required = operation.requestBody.required === true;
  } else if (Array.isArray(operation.parameters)) {
    const bodyParameter = operation.parameters.find(
      (parameter) => isRecord(parameter) && parameter.in === 'body',
    );
    if (isRecord(bodyParameter)) {
      content = { 'application/json': { schema: bodyParameter.schema } };
      required = bodyParameter.required === true;
    }
  }
  if (content === undefined) return undefined;
  const types = Object.keys(content);
  const jsonType = types.find((type) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(type));
  const formType = types.find((type) => type.toLowerCase().startsWith('application/x-www-form-urlencoded'));
  const contentType = jsonType ?? formType;
  if (contentType === undefined)
    throw new Unrepresentable(`request body type ${types.join(', ')} is not supported (JSON or form only)`);
  const media = content[contentType];
  const schema =
    isRecord(media) && isRecord(media.schema) ? (media.schema as JsonSchema) : { type: 'object' };
  const isObject = (schema.type === 'object' || schema.type === undefined) && isRecord(schema.properties);
  if (!isObject) {
    if (contentType === formType) throw new Unrepresentable('a form body must be an object schema');
    const name = taken.has('body') ? 'requestBody' : 'body';
    return {
      contentType,
      properties: { [name]: schema },
      required: required ? [name] : [],
      template: `{{${name}}}`,
    };
  }
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(schema.properties as Doc)) {
    if (!PLACEHOLDER_NAME.test(name))
      throw new Unrepresentable(`body property ${JSON.stringify(name)} cannot be a placeholder`);
    if (taken.has(name)) throw new Unrepresentable(`${name} is both a parameter and a body property`);
    properties[name] = isRecord(property) ? (property as JsonSchema) : {};
  }
  const requiredProperties = required && Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const template =
    contentType === formType
      ? Object.keys(properties)
          .map((name) => `${encodeURIComponent(name)}={{${name}}}`)
          .join('&')
      : Object.fromEntries(Object.keys(properties).map((name) => [name, `{{${name}}}`]));
  return { contentType, properties, required: requiredProperties, template };
}

/** `auth` for the first security requirement this tool can represent (bearer, basic, apiKey in a header). */
function readAuth(
  doc: Doc,
  operation: Doc,
  parameterNames: Set<string>,
): Record<string, unknown> | undefined {
  const requirements = Array.isArray(operation.security)
    ? operation.security
    : Array.isArray(doc.security)
      ? doc.security
      : [];
  if (requirements.length === 0) return undefined;
  const components = isRecord(doc.components) ? doc.components : {};
  const schemes = isRecord(components.securitySchemes)
    ? components.securitySchemes
    : isRecord(doc.securityDefinitions)
      ? doc.securityDefinitions
      : {};
  const reasons: string[] = [];
  for (const requirement of requirements) {
    if (!isRecord(requirement)) continue;
    const names = Object.keys(requirement);
    if (names.length === 0) return undefined; // `{}`: anonymous access is one of the alternatives.
    if (names.length > 1) {
      reasons.push(`${names.join(' + ')} (several schemes at once)`);
      continue;
    }
    const schemeName = names[0]!;
    const scheme = schemes[schemeName];
    let secret = secretName(schemeName);
    if (parameterNames.has(secret)) secret = `${secret}_SECRET`;
    if (!isRecord(scheme)) {
      reasons.push(`${schemeName} (not defined)`);
      continue;
    }
    const type = String(scheme.type);
    const httpScheme = typeof scheme.scheme === 'string' ? scheme.scheme.toLowerCase() : '';
    if ((type === 'http' && httpScheme === 'bearer') || type === 'oauth2' || type === 'openIdConnect') {
      return { type: 'bearer', value: `{{${secret}}}` };
    }
    if ((type === 'http' && httpScheme === 'basic') || type === 'basic') {
      return { type: 'basic', value: `{{${secret}_USER}}:{{${secret}_PASSWORD}}` };
    }
    if (type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string') {
      return { type: 'api-key', headerName: scheme.name, value: `{{${secret}}}` };
    }
    reasons.push(`${schemeName} (${type}${typeof scheme.in === 'string' ? ` in ${scheme.in}` : ''})`);
  }
  throw new Unrepresentable(
    `no supported security scheme: ${reasons.join(', ')} (bearer, basic and apiKey in a header are)`,
  );
}

function describe(operation: Doc, label: string): string {
  const parts = [operation.summary, operation.description].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  const text = parts.length === 0 ? label : parts.join('\n\n');
  return text.slice(0, 10_000);
}

function planOperation(
  doc: Doc,
  path: string,
  method: string,
  pathItem: Doc,
  operation: Doc,
  documentUrl: string | undefined,
): Record<string, unknown> {
  const base = serverUrl(doc, operation.servers ?? pathItem.servers, documentUrl);
  if (base === undefined || !/^https?:\/\//.test(base)) {
    throw new Unrepresentable('no absolute http(s) server URL (set `servers` or import from a URL)');
  }
  const parameters = readParameters(pathItem, operation);
  const names = new Set(parameters.map((parameter) => parameter.name));
  if (names.size !== parameters.length)
    throw new Unrepresentable('two parameters share a name in different locations');
  const body = readBody(operation, names);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    properties[parameter.name] = parameter.schema;
    if (parameter.required) required.push(parameter.name);
  }
  if (body !== undefined) {
    Object.assign(properties, body.properties);
    required.push(...body.required);
  }
  const pathTemplate = path.replace(/\{([^}]+)\}/g, (match, name: string) => {
    if (!names.has(name)) throw new Unrepresentable(`path parameter {${name}} is not declared`);
    return `{{${name}}}`;
  });
  const query = parameters
    .filter((parameter) => parameter.location === 'query')
    .map((parameter) => `${encodeURIComponent(parameter.name)}={{${parameter.name}}}`);
  const headers: Record<string, string> = {};
  for (const parameter of parameters.filter((entry) => entry.location === 'header')) {
    headers[parameter.name] = `{{${parameter.name}}}`;
  }
  if (body !== undefined) headers['Content-Type'] = body.contentType;
  const auth = readAuth(doc, operation, new Set(Object.keys(properties)));
  const schema: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) schema.required = [...new Set(required)];
  return {
    url: `${base}${pathTemplate}${query.length > 0 ? `?${query.join('&')}` : ''}`,
    method: method.toUpperCase(),
    description: describe(operation, `${method.toUpperCase()} ${path}`),
    parameters: schema,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(body === undefined ? {} : { body: body.template }),
    ...(auth === undefined ? {} : { auth }),
  };
}

/** Every operation of the document, as a planned tool or a skipped operation with its reason. */
export function planOpenApiTools(
  doc: Doc,
  takenNames: Iterable<string>,
  documentUrl?: string,
): { planned: PlannedHttpTool[]; skipped: SkippedOperation[] } {
  const taken = new Set(takenNames);
  const planned: PlannedHttpTool[] = [];
  const skipped: SkippedOperation[] = [];
  const paths = isRecord(doc.paths) ? doc.paths : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isRecord(pathItem)) continue;
    for (const method of OTHER_METHODS) {
      if (isRecord(pathItem[method])) {
        skipped.push({
          operation: `${method.toUpperCase()} ${path}`,
          reason: `method ${method.toUpperCase()} is not supported (GET, POST, PUT, PATCH, DELETE are)`,
        });
      }
    }
    for (const method of SUPPORTED_METHODS) {
      const operation = pathItem[method];
      if (!isRecord(operation)) continue;
      const label = `${method.toUpperCase()} ${path}`;
      try {
        const config = planOperation(doc, path, method, pathItem, operation, documentUrl);
        const base = sanitizeName(
          typeof operation.operationId === 'string' ? operation.operationId : `${method}_${path}`,
        );
        planned.push({ operation: label, name: uniqueName(base, taken), config });
      } catch (error) {
        if (!(error instanceof Unrepresentable)) throw error;
        skipped.push({ operation: label, reason: error.message });
      }
    }
  }
  return { planned, skipped };
}
