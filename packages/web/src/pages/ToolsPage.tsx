import { useEffect, useState } from 'react';
import { ApiError, api, call } from '../api/client';
import type { ToolDescriptor } from '../api/types';
import { useResource } from '../api/use-resource';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { usePage } from '../components/Pager';
import { Switch } from '../components/Switch';
import { DescriptorForm } from '../forms/DescriptorForm';
import { groupTools, loadErrorsOf, type GroupedTools } from './tool-groups';

export const TOOLS_RENDERED_MARK = 'toolport:tools-rendered';

export function ToolsPage() {
  const list = useResource(async () => {
    const body = await call(api.GET('/api/settings/tools'));
    return { tools: body.tools, loadErrors: loadErrorsOf(body) };
  });
  const [tools, setTools] = useState<ToolDescriptor[]>([]);
  const [query, setQuery] = useState('');
  useEffect(() => setTools(list.data?.tools ?? []), [list.data]);
  useEffect(() => {
    // `npm run bench -- web` reads this mark: from navigation start to the tool list on screen.
    if (list.data !== undefined && performance.getEntriesByName(TOOLS_RENDERED_MARK).length === 0)
      performance.mark(TOOLS_RENDERED_MARK);
  }, [list.data]);
  const replace = (next: ToolDescriptor) =>
    setTools((current) => current.map((tool) => (tool.name === next.name ? next : tool)));
  const groups = groupTools(tools, query);

  return (
    <Page
      title="Tools"
      intro="Every tool you can use, with its switch and settings. Settings apply to you only."
    >
      <div className="toolbar">
        <label htmlFor="tool-search">Search tools</label>
        <input
          id="tool-search"
          type="search"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <span className="muted" aria-live="polite">
          {list.data === undefined ? '' : `${groups.reduce((sum, group) => sum + group.count, 0)} tools`}
        </span>
      </div>
      <ErrorNotice error={list.error} />
      {list.data === undefined && list.error === undefined ? <p aria-busy="true">Loading tools…</p> : null}
      {(list.data?.loadErrors.length ?? 0) > 0 ? (
        <section className="card warning" aria-labelledby="load-errors">
          <h2 id="load-errors">Tools that failed to load</h2>
          <ul>
            {list.data!.loadErrors.map((entry) => (
              <li key={`${entry.file}:${entry.reason}`}>
                <code>{entry.file}</code>: {entry.reason}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {list.data === undefined
        ? null
        : groups.map((group) => (
            <ToolGroupSection key={group.group} group={group} query={query} onChange={replace} />
          ))}
    </Page>
  );
}

function ToolGroupSection({
  group,
  query,
  onChange,
}: {
  group: GroupedTools;
  query: string;
  onChange: (tool: ToolDescriptor) => void;
}) {
  const flat = group.categories.flatMap((category) => category.tools);
  const { visible, pager } = usePage(flat, 25, query);
  const shown = new Set(visible.map((tool) => tool.name));
  const headingId = `group-${group.group.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section className="tool-group" aria-labelledby={headingId}>
      <div className="group-heading">
        <h2 id={headingId}>{group.group}</h2>
        <span className="count">{group.count === 1 ? '1 tool' : `${group.count} tools`}</span>
      </div>
      {group.count === 0 ? (
        <p className="muted">{query === '' ? 'No tools here yet.' : 'No match.'}</p>
      ) : null}
      {group.categories.map((category) => {
        const members = category.tools.filter((tool) => shown.has(tool.name));
        if (members.length === 0) return null;
        return (
          <div key={category.category} className="tool-category">
            {/* A category named like its group (MCP tools are category "mcp") would only repeat the heading. */}
            {category.category.toLowerCase() === group.group.toLowerCase() ? null : (
              <h3>{category.category}</h3>
            )}
            {members.map((tool) => (
              <ToolCard key={tool.name} tool={tool} onChange={onChange} />
            ))}
          </div>
        );
      })}
      {pager}
    </section>
  );
}

function ToolCard({ tool, onChange }: { tool: ToolDescriptor; onChange: (tool: ToolDescriptor) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const headingId = `tool-${tool.name}`;

  const update = async (work: () => Promise<ToolDescriptor>) => {
    setBusy(true);
    setError(undefined);
    setFieldErrors({});
    try {
      onChange(await work());
    } catch (caught) {
      if (
        caught instanceof ApiError &&
        caught.parameter !== undefined &&
        tool.parameterDescriptors.some((d) => d.name === caught.parameter)
      )
        setFieldErrors({ [caught.parameter]: caught.message });
      else setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const path = { params: { path: { toolName: tool.name } } };

  return (
    <article className="card tool-card" aria-labelledby={headingId}>
      <header className="tool-header">
        <div>
          <h4 id={headingId}>
            {tool.title} <code>{tool.name}</code>
          </h4>
          <p className="muted">{tool.description}</p>
        </div>
        <Switch
          label={`Enable ${tool.name}`}
          checked={tool.enabled}
          disabled={busy || (!tool.canDisable && tool.enabled) || (!tool.policy.allowed && !tool.enabled)}
          onChange={(enabled) =>
            void update(() => call(api.PUT('/api/settings/tools/{toolName}', { ...path, body: { enabled } })))
          }
        />
      </header>
      {!tool.canDisable ? <p className="hint">This tool cannot be disabled.</p> : null}
      {tool.policy.allowed ? null : (
        <p className="notice" role="note">
          The operator&apos;s policy keeps this tool from you
          {tool.policy.reason === undefined ? '.' : `: ${tool.policy.reason}`}
        </p>
      )}
      <ErrorNotice error={error} />
      {tool.parameterDescriptors.length === 0 ? null : (
        <DescriptorForm
          label={tool.name}
          descriptors={tool.parameterDescriptors}
          values={tool.parameters}
          errors={fieldErrors}
          busy={busy}
          onSave={(parameters) =>
            void update(() =>
              call(api.PUT('/api/settings/tools/{toolName}', { ...path, body: { parameters } })),
            )
          }
          onReset={() => void update(() => call(api.DELETE('/api/settings/tools/{toolName}', path)))}
        />
      )}
    </article>
  );
}
