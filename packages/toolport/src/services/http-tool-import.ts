import { dereference } from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml } from 'yaml';
import { isToolportError, ToolportError } from '../core/errors.ts';
import { maskCredentials } from '../credentials/config-credentials.ts';
import { HTTP_TOOL_CREDENTIALS } from '../custom-tools/http-tool-config.ts';
import { planOpenApiTools, type SkippedOperation } from '../custom-tools/http-tool-openapi.ts';
import type { Caller, HttpToolService } from './http-tool-service.ts';

const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

export interface ImportRequest {
  document?: string | Record<string, unknown>;
  url?: string;
  dryRun?: boolean;
  enabled?: boolean;
}

function invalid(field: string, message: string): ToolportError {
  return new ToolportError('validation_failed', `Invalid OpenAPI import: \`${field}\` ${message}`, {
    details: { field },
  });
}

function parseDocumentText(text: string, field: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    // YAML 1.2 is a superset of JSON: one parser reads both. No custom tags, no aliases blow-up (maxAliasCount).
    parsed = parseYaml(text, { maxAliasCount: 1000 });
  } catch (error) {
    throw invalid(field, `is neither JSON nor YAML: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalid(field, 'must be an OpenAPI document (an object).');
  return parsed as Record<string, unknown>;
}

async function loadDocument(
  service: HttpToolService,
  request: ImportRequest,
): Promise<{ document: Record<string, unknown>; documentUrl: string | undefined }> {
  if ((request.document === undefined) === (request.url === undefined)) {
    throw invalid('document', 'or `url` is required (exactly one of them).');
  }
  if (request.document !== undefined) {
    const document =
      typeof request.document === 'string'
        ? parseDocumentText(request.document, 'document')
        : structuredClone(request.document);
    return { document, documentUrl: undefined };
  }
  // The document URL is chosen by a user: NET-1 applies like for any tool request.
  const response = await service.safeFetch.client.request({
    url: request.url!,
    headers: { accept: 'application/json, application/yaml, text/yaml, */*' },
    timeoutMs: FETCH_TIMEOUT_MS,
    maxResponseBytes: MAX_DOCUMENT_BYTES,
  });
  if (response.status < 200 || response.status > 299) {
    throw new ToolportError(
      'execution_failed',
      `Fetching the OpenAPI document answered HTTP ${response.status}.`,
      {
        details: { status: response.status },
      },
    );
  }
  if (response.truncated)
    throw invalid('url', `points to a document larger than ${MAX_DOCUMENT_BYTES} bytes.`);
  return {
    document: parseDocumentText(new TextDecoder().decode(response.body), 'url'),
    documentUrl: response.url,
  };
}

/**
 * `POST /api/tools/http-tool/import`: an OpenAPI document (object, JSON/YAML text, or a URL fetched through NET-1)
 * becomes one HTTP tool per operation. `$ref`s are resolved by json-schema-ref-parser with external resolution off —
 * it must never fetch a file or URL itself (no request outside NET-1); an external `$ref` stays unresolved and its
 * operation is skipped with the reason.
 */
export async function importOpenApiTools(
  service: HttpToolService,
  caller: Caller,
  request: ImportRequest,
): Promise<{ tools: Array<Record<string, unknown>>; skipped: SkippedOperation[] }> {
  service.assertAllowed(caller, 'create');
  const { document, documentUrl } = await loadDocument(service, request);
  if (typeof document.openapi !== 'string' && typeof document.swagger !== 'string') {
    throw invalid('document', 'is not an OpenAPI document (no `openapi` or `swagger` version field).');
  }
  let resolved: Record<string, unknown>;
  try {
    resolved = (await dereference(document, {
      resolve: { external: false, file: false, http: false },
      dereference: { circular: 'ignore' },
    })) as Record<string, unknown>;
  } catch (error) {
    throw invalid('document', `has $refs that cannot be resolved: ${(error as Error).message}`);
  }
  const { planned, skipped } = planOpenApiTools(resolved, await service.takenNames(caller), documentUrl);
  const tools: Array<Record<string, unknown>> = [];
  for (const tool of planned) {
    try {
      if (request.dryRun === true) {
        const config = await service.plan(caller, tool.name, tool.config);
        tools.push({
          name: tool.name,
          type: 'http',
          config: maskCredentials(config as unknown as Record<string, unknown>, HTTP_TOOL_CREDENTIALS),
          enabled: request.enabled ?? true,
        });
      } else {
        tools.push({
          ...(await service.create(caller, {
            name: tool.name,
            config: tool.config,
            enabled: request.enabled ?? true,
          })),
        });
      }
    } catch (error) {
      if (!isToolportError(error) || error.code === 'permission_denied') throw error;
      skipped.push({ operation: tool.operation, reason: error.message });
    }
  }
  return { tools, skipped };
}
