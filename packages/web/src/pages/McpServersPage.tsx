import { useState, type FormEvent } from 'react';
import { documentedRoutes } from '../api/openapi-routes';
import { requestJson } from '../api/raw';
import { api, call } from '../api/client';
import { formatDate } from '../api/format';
import type { McpServer, ToolDescriptor } from '../api/types';
import { useResource } from '../api/use-resource';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { Switch } from '../components/Switch';
import { SelectField, TextField } from '../components/TextField';
import { useAction } from '../components/useAction';
import { commandAndArguments, pairsOf } from './lines';

const RECONNECT_ROUTES = ['reconnect', 'connect', 'refresh'];

interface Draft {
  name: string;
  transport: 'stdio' | 'http';
  command: string;
  args: string;
  env: string;
  cwd: string;
  url: string;
  protocol: string;
  headers: string;
  callTimeoutSeconds: string;
}

const EMPTY: Draft = {
  name: '',
  transport: 'stdio',
  command: '',
  args: '',
  env: '',
  cwd: '',
  url: '',
  protocol: 'auto',
  headers: '',
  callTimeoutSeconds: '',
};

function configOf(draft: Draft): Record<string, unknown> {
  const timeout =
    draft.callTimeoutSeconds.trim() === '' ? {} : { callTimeoutSeconds: Number(draft.callTimeoutSeconds) };
  if (draft.transport === 'stdio') {
    const env = pairsOf(draft.env, '=');
    return {
      ...commandAndArguments(draft.command, draft.args),
      ...(Object.keys(env).length === 0 ? {} : { env }),
      ...(draft.cwd.trim() === '' ? {} : { cwd: draft.cwd.trim() }),
      ...timeout,
    };
  }
  const headers = pairsOf(draft.headers, ':');
  return {
    url: draft.url.trim(),
    protocol: draft.protocol,
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...timeout,
  };
}

/**
 * Listing the caller's tools is what connects enabled MCP servers (the catalog lists each server's tools), so after a
 * change the page asks for the tool list, then reads the servers' status.
 */
async function connectAndList(): Promise<{ servers: McpServer[]; tools: ToolDescriptor[] }> {
  const tools = await call(api.GET('/api/settings/tools'));
  const { servers } = await call(api.GET('/api/mcp-servers'));
  return { servers, tools: tools.tools };
}

export default function McpServersPage() {
  const [connecting, setConnecting] = useState(false);
  const list = useResource(connectAndList);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const action = useAction();
  const set = (field: keyof Draft) => (value: string) =>
    setDraft((current) => ({ ...current, [field]: value }));
  const [view, setView] = useState<{ servers: McpServer[]; tools: ToolDescriptor[] } | undefined>(undefined);
  const data = view ?? list.data;

  const refresh = async () => {
    setConnecting(true);
    try {
      setView(await connectAndList());
    } finally {
      setConnecting(false);
    }
  };

  const add = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await action.run(() =>
      call(
        api.POST('/api/mcp-servers', {
          body: { name: draft.name.trim(), transport: draft.transport, config: configOf(draft) },
        }),
      ),
    );
    if (ok) {
      setDraft(EMPTY);
      await action.run(refresh);
    }
  };
  const patch = (server: McpServer, body: { enabled?: boolean }) =>
    action.run(async () => {
      // An update (even an empty one) ends the server's connection; listing the tools connects it again.
      await call(
        api.PATCH('/api/mcp-servers/{serverId}', { params: { path: { serverId: server.id } }, body }),
      );
      await refresh();
    });
  // MCP-1 OAuth: the server's authorization page, then its callback page; the tools join on the next listing.
  const authorize = (server: McpServer) =>
    action.run(async () => {
      const { authorizationUrl } = await call(
        api.POST('/api/mcp-servers/{serverId}/authorize', { params: { path: { serverId: server.id } } }),
      );
      window.location.assign(authorizationUrl);
    });
  const forget = (server: McpServer) =>
    action.run(async () => {
      await call(
        api.DELETE('/api/mcp-servers/{serverId}/authorization', {
          params: { path: { serverId: server.id } },
        }),
      );
      await refresh();
    });
  const reconnect = (server: McpServer) =>
    action.run(async () => {
      // A dedicated route, once the server has one, beats the empty update.
      const routes = await documentedRoutes();
      const dedicated = RECONNECT_ROUTES.find((route) =>
        routes.has(`POST /api/mcp-servers/{serverId}/${route}`),
      );
      if (dedicated === undefined) {
        await call(
          api.PATCH('/api/mcp-servers/{serverId}', { params: { path: { serverId: server.id } }, body: {} }),
        );
      } else {
        await requestJson('POST', `/api/mcp-servers/${encodeURIComponent(server.id)}/${dedicated}`);
      }
      await refresh();
    });
  const remove = (server: McpServer) =>
    action.run(async () => {
      await call(api.DELETE('/api/mcp-servers/{serverId}', { params: { path: { serverId: server.id } } }));
      await refresh();
    });

  return (
    <Page
      title="MCP servers"
      intro="Tools from other MCP servers, local (a command toolport starts) or remote (a URL). Header and environment values may reference secrets as {{NAME}} and are shown as ***. Opening this page connects your enabled servers (a stdio server is started) to list their tools."
    >
      <form className="card" onSubmit={add} aria-labelledby="mcp-form-title" noValidate>
        <h2 id="mcp-form-title">Add an MCP server</h2>
        <TextField label="Name" value={draft.name} onValue={set('name')} required maxLength={64} />
        <fieldset>
          <legend>Transport</legend>
          {(['stdio', 'http'] as const).map((transport) => (
            <label key={transport} className="inline">
              <input
                type="radio"
                name="mcp-transport"
                value={transport}
                checked={draft.transport === transport}
                onChange={() => setDraft((current) => ({ ...current, transport }))}
              />
              {transport === 'stdio' ? 'Local process (stdio)' : 'Remote server (HTTP)'}
            </label>
          ))}
        </fieldset>
        {draft.transport === 'stdio' ? (
          <>
            <TextField
              label="Command"
              value={draft.command}
              onValue={set('command')}
              hint="An executable on the server (e.g. node), or a whole command line when Arguments is empty."
            />
            <TextField
              label="Arguments"
              rows={3}
              value={draft.args}
              onValue={set('args')}
              multiline
              hint="One argument per line."
            />
            <TextField
              label="Environment"
              rows={3}
              value={draft.env}
              onValue={set('env')}
              multiline
              hint="KEY=value per line; values may be {{SECRET}}."
            />
            <TextField label="Working directory" value={draft.cwd} onValue={set('cwd')} />
          </>
        ) : (
          <>
            <TextField label="URL" value={draft.url} onValue={set('url')} type="url" />
            <SelectField
              label="Protocol"
              value={draft.protocol}
              onValue={set('protocol')}
              options={['auto', 'streamable-http', 'sse'].map((value) => ({ value, label: value }))}
            />
            <TextField
              label="Headers"
              rows={3}
              value={draft.headers}
              onValue={set('headers')}
              multiline
              hint="Name: value per line; values may be {{SECRET}}."
            />
          </>
        )}
        <TextField
          label="Call timeout (seconds)"
          value={draft.callTimeoutSeconds}
          onValue={set('callTimeoutSeconds')}
          type="number"
        />
        <button type="submit" disabled={action.busy || draft.name.trim() === ''}>
          Add server
        </button>
        <ErrorNotice error={action.error} />
      </form>
      <ErrorNotice error={list.error} />
      <p className="status" aria-live="polite">
        {connecting ? 'Connecting and listing tools…' : ''}
      </p>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={connecting}
          onClick={() => void action.run(refresh)}
        >
          Refresh status
        </button>
      </div>
      {data?.servers.length === 0 ? <p className="muted">No MCP servers yet.</p> : null}
      {(data?.servers ?? []).map((server) => (
        <ServerCard
          key={server.id}
          server={server}
          tools={(data?.tools ?? []).filter(
            (tool) =>
              tool.source === 'mcp' && tool.description.endsWith(` from the MCP server ${server.name}`),
          )}
          busy={action.busy || connecting}
          onEnable={(enabled) => void patch(server, { enabled })}
          onReconnect={() => void reconnect(server)}
          onAuthorize={() => void authorize(server)}
          onForget={() => void forget(server)}
          onDelete={() => void remove(server)}
        />
      ))}
    </Page>
  );
}

function ServerCard(props: {
  server: McpServer;
  tools: ToolDescriptor[];
  busy: boolean;
  onEnable: (enabled: boolean) => void;
  onReconnect: () => void;
  onAuthorize: () => void;
  onForget: () => void;
  onDelete: () => void;
}) {
  const { server } = props;
  const { status } = server;
  const headingId = `mcp-${server.id}`;
  return (
    <article className="card" aria-labelledby={headingId}>
      <header className="tool-header">
        <h2 id={headingId}>
          {server.name} <span className="muted">({server.transport})</span>
        </h2>
        <Switch
          label={`Enable ${server.name}`}
          checked={server.enabled}
          disabled={props.busy}
          onChange={props.onEnable}
        />
      </header>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge state-${status.state}`}>{status.state}</span>
        </dd>
        <dt>Tools</dt>
        <dd>{status.toolCount ?? '—'}</dd>
        <dt>Last error</dt>
        <dd>
          {status.lastError === undefined
            ? 'none'
            : `${status.lastError.message} (${formatDate(status.lastError.at)})`}
        </dd>
        <dt>Connected since</dt>
        <dd>{formatDate(status.connectedAt)}</dd>
        {status.pid === undefined ? null : (
          <>
            <dt>Process</dt>
            <dd>{status.pid}</dd>
          </>
        )}
        <dt>Config</dt>
        <dd>
          <code className="wrap">{JSON.stringify(server.config)}</code>
        </dd>
      </dl>
      {props.tools.length === 0 ? null : (
        <section aria-label={`Tools of ${server.name}`}>
          <h3>Tools</h3>
          <ul className="tool-names">
            {props.tools.map((tool) => (
              <li key={tool.name}>
                <code>{tool.name}</code> {tool.title}
              </li>
            ))}
          </ul>
        </section>
      )}
      <div className="actions">
        {status.state === 'needs_authorization' ? (
          <button
            type="button"
            disabled={props.busy}
            onClick={props.onAuthorize}
            aria-label={`Connect ${server.name}`}
          >
            Connect
          </button>
        ) : null}
        {server.transport === 'stdio' ? null : (
          <button
            type="button"
            className="secondary"
            disabled={props.busy}
            onClick={props.onForget}
            aria-label={`Forget authorization of ${server.name}`}
          >
            Forget authorization
          </button>
        )}
        <button
          type="button"
          className="secondary"
          disabled={props.busy}
          onClick={props.onReconnect}
          aria-label={`Reconnect ${server.name}`}
        >
          Reconnect
        </button>
        <button
          type="button"
          className="danger"
          disabled={props.busy}
          onClick={props.onDelete}
          aria-label={`Delete ${server.name}`}
        >
          Delete
        </button>
      </div>
    </article>
  );
}
