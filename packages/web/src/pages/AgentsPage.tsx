import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { formatDate, prettyJson } from '../api/format';
import type { Agent } from '../api/types';
import { useResource } from '../api/use-resource';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { Switch } from '../components/Switch';
import { TextField } from '../components/TextField';
import { useAction } from '../components/useAction';

export default function AgentsPage() {
  const list = useResource(() => call(api.GET('/api/agents')));
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [systemPrompt, setSystemPrompt] = useState('');
  const [model, setModel] = useState('');
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState<Agent | undefined>(undefined);
  const action = useAction();

  const startEdit = (agent: Agent | undefined) => {
    setEditing(agent);
    setName(agent?.name ?? '');
    setDescription(agent?.description ?? '');
    setSystemPrompt(typeof agent?.config.systemPrompt === 'string' ? agent.config.systemPrompt : '');
    setModel(typeof agent?.config.model === 'string' ? agent.config.model : '');
  };

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await action.run(() => {
      if (editing === undefined) {
        const config = {
          ...(systemPrompt.trim() === '' ? {} : { systemPrompt }),
          ...(model.trim() === '' ? {} : { model: model.trim() }),
        };
        return call(api.POST('/api/agents', { body: { name: name.trim(), description, config } }));
      }
      // An update merges into the stored config; null removes a key.
      const config = {
        systemPrompt: systemPrompt.trim() === '' ? null : systemPrompt,
        model: model.trim() === '' ? null : model.trim(),
      };
      return call(
        api.PATCH('/api/agents/{agentId}', {
          params: { path: { agentId: editing.id } },
          body: { name: name.trim(), description, config },
        }),
      );
    });
    if (ok) {
      startEdit(undefined);
      await list.reload();
    }
  };

  return (
    <Page
      title="Agents"
      intro="An agent is a system prompt, a model and an allowlist of tools; specialists are other agents it may hand work to, chosen among its tools."
    >
      <form className="card" onSubmit={create} aria-labelledby="agent-form-title" noValidate>
        <h2 id="agent-form-title">{editing === undefined ? 'Create an agent' : `Edit ${editing.name}`}</h2>
        <TextField label="Name" value={name} onValue={setName} maxLength={200} />
        <TextField label="Description" value={description} onValue={setDescription} />
        <TextField label="System prompt" value={systemPrompt} onValue={setSystemPrompt} multiline />
        <TextField
          label="Model"
          value={model}
          onValue={setModel}
          hint="Empty: the provider configuration's default model."
        />
        <div className="actions">
          <button type="submit" disabled={action.busy || name.trim() === ''}>
            {editing === undefined ? 'Create agent' : 'Save agent'}
          </button>
          {editing === undefined ? null : (
            <button type="button" className="secondary" onClick={() => startEdit(undefined)}>
              Cancel editing
            </button>
          )}
        </div>
        <ErrorNotice error={action.error} />
      </form>
      <ErrorNotice error={list.error} />
      {list.data?.agents.length === 0 ? <p className="muted">No agents yet.</p> : null}
      {(list.data?.agents ?? []).map((agent) => (
        <article key={agent.id} className="card" aria-labelledby={`agent-${agent.id}`}>
          <header className="tool-header">
            <h2 id={`agent-${agent.id}`}>{agent.name}</h2>
            <div className="actions">
              <button
                type="button"
                className="secondary"
                aria-label={`Edit ${agent.name}`}
                onClick={() => startEdit(agent)}
              >
                Edit
              </button>
              <button
                type="button"
                className="secondary"
                aria-expanded={open === agent.id}
                aria-label={`Tools of ${agent.name}`}
                onClick={() => setOpen(open === agent.id ? undefined : agent.id)}
              >
                Tools
              </button>
              <button
                type="button"
                className="danger"
                aria-label={`Delete ${agent.name}`}
                onClick={() =>
                  void action.run(async () => {
                    await call(
                      api.DELETE('/api/agents/{agentId}', { params: { path: { agentId: agent.id } } }),
                    );
                    await list.reload();
                  })
                }
              >
                Delete
              </button>
            </div>
          </header>
          <p>{agent.description}</p>
          <pre className="json">{prettyJson(agent.config)}</pre>
          <p className="muted">
            Id <code>{agent.id}</code> · created {formatDate(agent.createdAt)}
          </p>
          {open === agent.id ? <AgentTools agent={agent} /> : null}
        </article>
      ))}
    </Page>
  );
}

/** The agent's allowlist: a switch per tool, stored with PATCH /api/agents/:id/tools/:tool. */
function AgentTools({ agent }: { agent: Agent }) {
  const tools = useResource(() => call(api.GET('/api/settings/tools')));
  const selection = useResource(() =>
    call(api.GET('/api/agents/{agentId}/tools', { params: { path: { agentId: agent.id } } })),
  );
  const action = useAction();
  const rows = new Map((selection.data?.tools ?? []).map((tool) => [tool.toolName, tool]));
  // The agent's own list names every tool it could get (specialists too); the settings list fills in older servers.
  const names = [...new Set([...rows.keys(), ...(tools.data?.tools ?? []).map((tool) => tool.name)])].sort();
  return (
    <section aria-label={`Tool allowlist of ${agent.name}`}>
      <h3>Tools</h3>
      <p className="hint">
        Each switch says whether the agent gets the tool. Switching one off denies it; switching one on allows
        it, and once any tool is allowed the agent gets only the allowed ones. Specialists (other agents) are
        listed as tools.
      </p>
      <ErrorNotice error={tools.error ?? selection.error ?? action.error} />
      <ul className="allowlist">
        {names.map((name) => {
          const row = rows.get(name);
          return (
            <li key={name}>
              <Switch
                label={`Allow ${name}`}
                checked={row?.enabled === true}
                disabled={action.busy || selection.data === undefined}
                onChange={(enabled) =>
                  void action.run(async () => {
                    await call(
                      api.PATCH('/api/agents/{agentId}/tools/{toolId}', {
                        params: { path: { agentId: agent.id, toolId: name } },
                        body: { enabled },
                      }),
                    );
                    await selection.reload();
                  })
                }
              />
              <code>{name}</code>
              {row?.type === undefined ? null : <span className="muted">{row.type}</span>}
              {row?.selected === true ? <span className="badge">selected</span> : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
