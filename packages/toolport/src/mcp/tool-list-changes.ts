/**
 * MCP `notifications/tools/list_changed` (MCP-2): a source of "the runtime's tool list changed" events, e.g. a
 * workspace's tools.json reloaded. The servers subscribe to it; the runtime they were given reflects the change.
 */
export interface ToolListChanges {
  subscribe(listener: () => void): () => void;
}
