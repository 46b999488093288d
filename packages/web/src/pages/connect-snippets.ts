export const TOKEN_PLACEHOLDER = '<YOUR_TOOLPORT_TOKEN>';

export interface Snippet {
  id: string;
  title: string;
  description: string;
  text: (token: string) => string;
  /** Whether the snippet carries the token (only those get a "copy with my token" button). */
  usesToken: boolean;
}

/** Client configuration for toolport as an MCP server: local over stdio, or remote over `/mcp` on this server. */
export function connectSnippets(origin: string, userName: string | undefined): Snippet[] {
  const mcpUrl = `${origin}/mcp`;
  const user = userName ?? 'NAME';
  return [
    {
      id: 'stdio',
      title: 'Local (stdio): your built-in tools',
      description:
        'An MCP client on this machine starts toolport itself. Add to the client’s mcpServers configuration.',
      usesToken: false,
      text: () =>
        JSON.stringify({ mcpServers: { toolport: { command: 'npx', args: ['toolport', 'mcp'] } } }, null, 2),
    },
    {
      id: 'stdio-stored',
      title: 'Local (stdio): your stored tools and settings',
      description:
        'Serves this server’s settings, secrets and MCP servers of one user, reading the same data directory (or database).',
      usesToken: false,
      text: () =>
        JSON.stringify(
          { mcpServers: { toolport: { command: 'npx', args: ['toolport', 'mcp', '--user', user] } } },
          null,
          2,
        ),
    },
    {
      id: 'remote',
      title: 'Remote (Streamable HTTP)',
      description: `Clients that speak MCP over HTTP connect to ${mcpUrl} with your token.`,
      usesToken: true,
      text: (token) =>
        JSON.stringify(
          {
            mcpServers: {
              toolport: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${token}` } },
            },
          },
          null,
          2,
        ),
    },
    {
      id: 'claude-code',
      title: 'Claude Code',
      description: 'One command adds the remote server.',
      usesToken: true,
      text: (token) =>
        `claude mcp add --transport http toolport ${mcpUrl} --header "Authorization: Bearer ${token}"`,
    },
    {
      id: 'curl',
      title: 'Check with curl',
      description: 'An initialize request; the answer names the server and its capabilities.',
      usesToken: true,
      text: (token) =>
        `curl -s ${mcpUrl} -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\\n  -H 'Accept: application/json, text/event-stream' \\\n  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'`,
    },
  ];
}
