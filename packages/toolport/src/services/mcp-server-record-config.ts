import { parseMcpServerConfig, type McpServerConfig } from '../mcp/mcp-server-config.ts';
import type { McpServerRecord } from '../persistence/repositories/mcp-server-repository.ts';

/** The row's pieces as one config for the pool; the row's own id, name, transport and flag win over `config`. */
export function toMcpServerConfig(record: McpServerRecord): McpServerConfig {
  return parseMcpServerConfig({
    ...record.config,
    id: record.id,
    name: record.name,
    transport: record.transport,
    enabled: record.enabled,
  });
}
