import { createHash } from 'node:crypto';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ToolportError } from '../core/errors.ts';
import { TIMEOUT_SECONDS_DESCRIPTOR, MAX_TOOL_TIMEOUT_SECONDS } from '../core/settings-policy.ts';
import type { RegistryEntry } from '../core/tool-registry.ts';
import type {
  JsonSchema,
  RegisteredTool,
  ToolAnnotations,
  ToolArguments,
  ToolParameterDescriptor,
} from '../core/tool-types.ts';
import type { McpCallOptions } from './mcp-client-pool.ts';
import type { McpServerConfig } from './mcp-server-config.ts';

/** What an entry needs of the pool: a call. Kept structural so tests and other pools can provide it. */
export interface McpToolCaller {
  callTool(
    userId: string,
    config: McpServerConfig,
    toolName: string,
    args: Record<string, unknown>,
    options?: McpCallOptions,
  ): Promise<CallToolResult>;
}

export interface McpServerListing {
  config: McpServerConfig;
  tools: readonly McpTool[];
}

export interface CreateMcpToolEntriesOptions {
  pool: McpToolCaller;
  userId: string;
  /** Names already taken (built-ins, custom tools): an MCP tool never takes one of them. */
  reservedNames?: Iterable<string>;
}

const MAX_NAME_LENGTH = 64;
const HASH_SUFFIX_LENGTH = 8;

/**
 * executeTool's time budget is a hard ceiling; the pool's per-call timeout (the server's `callTimeoutSeconds`,
 * restarted by progress) is the one that normally fires. So MCP tools default to the largest budget core allows.
 */
const MCP_TIMEOUT_DESCRIPTOR: ToolParameterDescriptor = {
  ...TIMEOUT_SECONDS_DESCRIPTOR,
  title: 'Maximum total time',
  description:
    'The longest one call may run even while the server reports progress. The server setting "call timeout" ' +
    'limits the wait without progress.',
  default: MAX_TOOL_TIMEOUT_SECONDS,
};

function sanitizeNamePart(text: string): string {
  const sanitized = text.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return sanitized === '' ? 'tool' : sanitized;
}

function shortHash(serverId: string, toolName: string): string {
  return createHash('sha256')
    .update(`${serverId}\u0000${toolName}`)
    .digest('hex')
    .slice(0, HASH_SUFFIX_LENGTH);
}

function hashedName(base: string, serverId: string, toolName: string): string {
  return `${base.slice(0, MAX_NAME_LENGTH - HASH_SUFFIX_LENGTH - 1)}_${shortHash(serverId, toolName)}`;
}

/**
 * Provider-safe wire names for MCP tools. The rule, deterministic whatever order servers answer in:
 * 1. the name is `<server name>_<tool name>`, each part with every run of characters outside `[a-zA-Z0-9_-]`
 *    replaced by `_`;
 * 2. a name longer than 64 characters keeps its first 55 and gets `_` + the first 8 hex digits of
 *    sha256(`<server id>\0<tool name>`);
 * 3. tools are then taken in order of (server name, server id, tool name); the first to claim a name keeps it, and a
 *    later tool whose name is taken (or reserved: built-ins and custom tools) gets the hashed form of rule 2.
 */
export function assignMcpToolNames(
  listings: readonly McpServerListing[],
  reservedNames: Iterable<string> = [],
): Map<McpServerListing, Map<string, string>> {
  const taken = new Set(reservedNames);
  const ordered = listings
    .flatMap((listing) => listing.tools.map((tool) => ({ listing, tool })))
    .sort(
      (a, b) =>
        compare(a.listing.config.name, b.listing.config.name) ||
        compare(a.listing.config.id, b.listing.config.id) ||
        compare(a.tool.name, b.tool.name),
    );
  const names = new Map<McpServerListing, Map<string, string>>();
  for (const { listing, tool } of ordered) {
    const serverId = listing.config.id;
    const base = `${sanitizeNamePart(listing.config.name)}_${sanitizeNamePart(tool.name)}`;
    let name = base.length > MAX_NAME_LENGTH ? hashedName(base, serverId, tool.name) : base;
    if (taken.has(name)) name = hashedName(base, serverId, tool.name);
    // A clash even after hashing (a server listing one tool name twice): count up deterministically.
    for (let attempt = 2; taken.has(name); attempt += 1) {
      name = hashedName(base, serverId, `${tool.name}\u0000${attempt}`);
    }
    taken.add(name);
    let byTool = names.get(listing);
    if (byTool === undefined) names.set(listing, (byTool = new Map()));
    if (!byTool.has(tool.name)) byTool.set(tool.name, name);
  }
  return names;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Providers want a plain object schema; `$schema` dialect markers make some validators (and providers) refuse it. */
function toParameters(inputSchema: McpTool['inputSchema']): JsonSchema {
  const { $schema: _dialect, ...schema } = inputSchema as JsonSchema;
  if (schema.type !== 'object') schema.type = 'object';
  return schema;
}

function toAnnotations(tool: McpTool): ToolAnnotations | undefined {
  const source = tool.annotations;
  if (source === undefined) return undefined;
  const annotations: ToolAnnotations = {};
  if (source.readOnlyHint !== undefined) annotations.readOnlyHint = source.readOnlyHint;
  if (source.destructiveHint !== undefined) annotations.destructiveHint = source.destructiveHint;
  if (source.idempotentHint !== undefined) annotations.idempotentHint = source.idempotentHint;
  if (source.openWorldHint !== undefined) annotations.openWorldHint = source.openWorldHint;
  return annotations;
}

/** The text of an MCP result's content blocks; non-text blocks are described, not dropped silently. */
export function mcpContentToText(content: CallToolResult['content']): string {
  return content
    .map((block) => {
      if (block.type === 'text') return block.text;
      if (block.type === 'resource_link') return `[resource ${block.uri}]`;
      if (block.type === 'resource') {
        const resource = block.resource;
        return 'text' in resource ? resource.text : `[resource ${resource.uri}]`;
      }
      return `[${block.type} ${'mimeType' in block ? block.mimeType : ''}]`.replace(' ]', ']');
    })
    .join('\n');
}

/**
 * What the model receives for a successful call: the structured content when the server gave one, else the text of
 * a lone text block, else the content blocks as they are.
 */
function toToolResult(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content;
  if (content.length === 1 && content[0]!.type === 'text') return content[0]!.text;
  return content;
}

function createEntry(
  config: McpServerConfig,
  tool: McpTool,
  wireName: string,
  options: CreateMcpToolEntriesOptions,
): RegistryEntry {
  const description = tool.description ?? tool.title ?? `${tool.name} (MCP server ${config.name})`;
  const annotations = toAnnotations(tool);
  const registered: RegisteredTool = {
    definition: { name: wireName, description, parameters: toParameters(tool.inputSchema) },
    settings: {
      title: tool.title ?? tool.annotations?.title ?? tool.name,
      description: `${tool.name} from the MCP server ${config.name}`,
      category: 'mcp',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { timeoutSeconds: MCP_TIMEOUT_DESCRIPTOR.default },
      parameterDescriptors: [MCP_TIMEOUT_DESCRIPTOR],
    },
    ...(annotations === undefined ? {} : { annotations }),
    async execute(args: ToolArguments, context) {
      const result = await options.pool.callTool(options.userId, config, tool.name, args, {
        signal: context.signal,
        onProgress: (progress) => context.reportProgress(progress),
      });
      if (result.isError === true) {
        // The tool's own failure: a result the model can read and act on (MCP semantics), not a broken call.
        const text = mcpContentToText(result.content).trim();
        throw new ToolportError(
          'execution_failed',
          text === '' ? `${tool.name} on the MCP server ${config.name} reported an error.` : text,
          { details: { server: config.name, tool: tool.name, isError: true } },
        );
      }
      return toToolResult(result);
    },
  };
  return { tool: registered, source: { kind: 'mcp', origin: `mcp:${config.name}` } };
}

/**
 * Registry entries for listed MCP tools, for `createToolRuntime({ extraEntries })`. Each executes through the pool,
 * so every use shares the server's one connection.
 */
export function createMcpToolEntries(
  listings: readonly McpServerListing[],
  options: CreateMcpToolEntriesOptions,
): RegistryEntry[] {
  const names = assignMcpToolNames(listings, options.reservedNames);
  const entries: RegistryEntry[] = [];
  for (const listing of listings) {
    const byTool = names.get(listing);
    const seen = new Set<string>();
    for (const tool of listing.tools) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      entries.push(createEntry(listing.config, tool, byTool!.get(tool.name)!, options));
    }
  }
  return entries.sort((a, b) => compare(a.tool.definition.name, b.tool.definition.name));
}
