import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { formatDate, prettyJson } from '../api/format';
import { useDocumentedRoute } from '../api/openapi-routes';
import { requestJson } from '../api/raw';
import type { HttpTool, HttpToolBody } from '../api/types';
import { useResource } from '../api/use-resource';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { Switch } from '../components/Switch';
import { TextField } from '../components/TextField';
import { useAction } from '../components/useAction';

const TEMPLATE = {
  url: 'https://api.example.com/items/{{id}}',
  method: 'GET',
  description: 'What the model reads about this tool.',
  // The tool's arguments (JSON Schema): every {{placeholder}} that is not a secret names one of them.
  parameters: {
    type: 'object',
    properties: { id: { type: 'string', description: 'The item id.' } },
    required: ['id'],
    additionalProperties: false,
  },
  headers: { Accept: 'application/json' },
  auth: { type: 'bearer', value: '{{MY_API_KEY}}' },
  timeout: 30000,
};

/** Declarative HTTP tools. Credentials come back as "***"; leaving "***" in place keeps the stored value. */
export default function HttpToolsPage() {
  const list = useResource(() => call(api.GET('/api/tools/http-tool')));
  const hasTest = useDocumentedRoute('POST /api/tools/http-tool/{toolId}/test');
  const hasImport = useDocumentedRoute('POST /api/tools/http-tool/import');
  const [editing, setEditing] = useState<HttpTool | undefined>(undefined);
  const [name, setName] = useState('');
  const [configText, setConfigText] = useState(prettyJson(TEMPLATE));
  const [configError, setConfigError] = useState<string | undefined>(undefined);
  const action = useAction();

  const startEdit = (tool: HttpTool | undefined) => {
    setEditing(tool);
    setName(tool?.name ?? '');
    setConfigText(prettyJson(tool?.config ?? TEMPLATE));
    setConfigError(undefined);
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    let config: Record<string, unknown>;
    try {
      config = JSON.parse(configText) as Record<string, unknown>;
      setConfigError(undefined);
    } catch (error) {
      setConfigError(`Not JSON: ${(error as Error).message}`);
      return;
    }
    const ok = await action.run(() =>
      editing === undefined
        ? call(
            api.POST('/api/tools/http-tool', {
              body: { name: name.trim(), config: config as HttpToolBody['config'] },
            }),
          )
        : call(
            api.PATCH('/api/tools/http-tool/{toolId}', {
              params: { path: { toolId: editing.id } },
              body: { name: name.trim(), config },
            }),
          ),
    );
    if (ok) {
      startEdit(undefined);
      await list.reload();
    }
  };

  return (
    <Page
      title="HTTP tools"
      intro="Tools that call an HTTP API you describe: URL and body templates with {{arguments}}, headers, auth from a secret."
    >
      <form className="card" onSubmit={save} aria-labelledby="http-form-title" noValidate>
        <h2 id="http-form-title">{editing === undefined ? 'Add an HTTP tool' : `Edit ${editing.name}`}</h2>
        <TextField label="Name" value={name} onValue={setName} hint="Letters, digits, _ and -; up to 64." />
        <TextField
          label="Configuration (JSON)"
          value={configText}
          onValue={setConfigText}
          multiline
          error={configError}
          hint="url, method, description, headers, body, auth {type, value, headerName}, responseMapping, timeout (ms). *** keeps a stored secret."
        />
        <div className="actions">
          <button type="submit" disabled={action.busy || name.trim() === ''}>
            {editing === undefined ? 'Add HTTP tool' : 'Save HTTP tool'}
          </button>
          {editing === undefined ? null : (
            <button type="button" className="secondary" onClick={() => startEdit(undefined)}>
              Cancel editing
            </button>
          )}
        </div>
        <ErrorNotice error={action.error} />
      </form>
      {hasImport ? <ImportForm onImported={() => void list.reload()} /> : null}
      <ErrorNotice error={list.error} />
      {list.data?.tools.length === 0 ? <p className="muted">No HTTP tools yet.</p> : null}
      {(list.data?.tools ?? []).map((tool) => (
        <article key={tool.id} className="card" aria-labelledby={`http-${tool.id}`}>
          <header className="tool-header">
            <h2 id={`http-${tool.id}`}>
              <code>{tool.name}</code>
            </h2>
            <Switch
              label={`Enable ${tool.name}`}
              checked={tool.enabled}
              disabled={action.busy}
              onChange={(enabled) =>
                void action.run(async () => {
                  await call(
                    api.PATCH('/api/tools/http-tool/{toolId}', {
                      params: { path: { toolId: tool.id } },
                      body: { enabled },
                    }),
                  );
                  await list.reload();
                })
              }
            />
          </header>
          <pre className="json">{prettyJson(tool.config)}</pre>
          <p className="muted">Updated {formatDate(tool.updatedAt)}</p>
          {hasTest ? <DryRun toolId={tool.id} /> : null}
          <div className="actions">
            <button
              type="button"
              className="secondary"
              aria-label={`Edit ${tool.name}`}
              onClick={() => startEdit(tool)}
            >
              Edit
            </button>
            <button
              type="button"
              className="danger"
              aria-label={`Delete ${tool.name}`}
              onClick={() =>
                void action.run(async () => {
                  await call(
                    api.DELETE('/api/tools/http-tool/{toolId}', { params: { path: { toolId: tool.id } } }),
                  );
                  await list.reload();
                })
              }
            >
              Delete
            </button>
          </div>
        </article>
      ))}
    </Page>
  );
}

function DryRun({ toolId }: { toolId: string }) {
  const [args, setArgs] = useState('{}');
  const [result, setResult] = useState<unknown>(undefined);
  const action = useAction();
  return (
    <div className="dry-run">
      <TextField label="Test arguments (JSON)" value={args} onValue={setArgs} multiline />
      <button
        type="button"
        className="secondary"
        disabled={action.busy}
        onClick={() =>
          void action.run(async () =>
            setResult(
              await requestJson('POST', `/api/tools/http-tool/${encodeURIComponent(toolId)}/test`, {
                args: JSON.parse(args) as unknown,
              }),
            ),
          )
        }
      >
        Test (dry run)
      </button>
      <ErrorNotice error={action.error} />
      {result === undefined ? null : (
        <pre className="json" aria-label="Dry-run result">
          {prettyJson(result)}
        </pre>
      )}
    </div>
  );
}

function ImportForm({ onImported }: { onImported: () => void }) {
  const [document, setDocument] = useState('');
  const [result, setResult] = useState<unknown>(undefined);
  const action = useAction();
  return (
    <form
      className="card"
      aria-labelledby="import-title"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          let parsed: unknown = document;
          try {
            parsed = JSON.parse(document);
          } catch {
            // YAML or other text goes as it is.
          }
          setResult(await requestJson('POST', '/api/tools/http-tool/import', { document: parsed }));
          onImported();
        });
      }}
    >
      <h2 id="import-title">Import from OpenAPI</h2>
      <TextField
        label="OpenAPI document"
        value={document}
        onValue={setDocument}
        multiline
        hint="Paste the JSON (or YAML) document."
      />
      <button type="submit" disabled={action.busy || document.trim() === ''}>
        Import
      </button>
      <ErrorNotice error={action.error} />
      {result === undefined ? null : <pre className="json">{prettyJson(result)}</pre>}
    </form>
  );
}
