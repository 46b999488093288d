import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, api, call } from '../../api/client';
import { prettyJson } from '../../api/format';
import type { ToolRunResult } from '../../api/types';
import { useResource } from '../../api/use-resource';
import { ErrorNotice } from '../../components/ErrorNotice';
import { SelectField, TextField } from '../../components/TextField';
import { SchemaForm } from '../../forms/SchemaForm';
import { argumentsOf, schemaDraftsOf, schemaFieldsOf, type SchemaDraft } from '../../forms/schema-fields';

/** The raw JSON Schema of each enabled tool: the inspector's Anthropic projection passes schemas through as they are. */
async function enabledToolSchemas(chatId: string) {
  const result = await call(
    api.GET('/api/chats/{chatId}/capabilities', {
      params: { path: { chatId }, query: { provider: 'anthropic' } },
    }),
  );
  return result.tools.map((tool) => {
    const wire = (tool.wire ?? {}) as { input_schema?: unknown; description?: unknown };
    return {
      name: tool.name,
      origin: tool.origin,
      description: typeof wire.description === 'string' ? wire.description : '',
      schema: wire.input_schema ?? { type: 'object', properties: {} },
    };
  });
}

type Outcome =
  { kind: 'result'; value: ToolRunResult } | { kind: 'error'; error: unknown; elapsedMs: number };

export function ToolRunner({ chatId }: { chatId: string }) {
  const tools = useResource(() => enabledToolSchemas(chatId), chatId);
  const [toolName, setToolName] = useState('');
  const [tab, setTab] = useState<'form' | 'json'>('form');
  const [drafts, setDrafts] = useState<Record<string, SchemaDraft>>({});
  const [rawJson, setRawJson] = useState('{}');
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [rawError, setRawError] = useState<string | undefined>(undefined);
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);

  const list = tools.data ?? [];
  const selected = list.find((tool) => tool.name === toolName);
  const fields = useMemo(() => schemaFieldsOf(selected?.schema), [selected]);
  useEffect(() => {
    // The first tool is a default only: a tool picked between the list's render and this effect is kept.
    const first = list[0]?.name;
    if (first !== undefined) setToolName((current) => (current === '' ? first : current));
  }, [list]);
  useEffect(() => {
    setDrafts(schemaDraftsOf(fields, {}));
    setRawJson('{}');
    setFieldErrors({});
    setOutcome(undefined);
  }, [fields]);

  const switchTab = (next: 'form' | 'json') => {
    if (next === tab) return;
    if (next === 'json') setRawJson(JSON.stringify(argumentsOf(fields, drafts).args, null, 2));
    else {
      try {
        const parsed = JSON.parse(rawJson) as Record<string, unknown>;
        setDrafts(schemaDraftsOf(fields, parsed));
        setRawError(undefined);
      } catch {
        setRawError('Not JSON: fix it before switching to the form.');
        return;
      }
    }
    setTab(next);
  };

  const run = async (event: FormEvent) => {
    event.preventDefault();
    let args: unknown;
    if (tab === 'form') {
      const built = argumentsOf(fields, drafts);
      setFieldErrors(built.errors);
      if (Object.keys(built.errors).length > 0) return;
      args = built.args;
    } else {
      try {
        args = JSON.parse(rawJson);
        setRawError(undefined);
      } catch (error) {
        setRawError(`Not JSON: ${(error as Error).message}`);
        return;
      }
    }
    setRunning(true);
    const started = performance.now();
    try {
      const value = await call(
        api.POST('/api/tools/{toolName}/execute', { params: { path: { toolName } }, body: { args, chatId } }),
      );
      setOutcome({ kind: 'result', value });
    } catch (error) {
      setOutcome({ kind: 'error', error, elapsedMs: performance.now() - started });
    } finally {
      setRunning(false);
    }
  };

  return (
    <section className="card" aria-labelledby="runner-title">
      <h2 id="runner-title">Run a tool</h2>
      <ErrorNotice error={tools.error} />
      <form onSubmit={run} noValidate>
        <SelectField
          label="Tool"
          value={toolName}
          onValue={setToolName}
          options={list.map((tool) => ({ value: tool.name, label: `${tool.name} (${tool.origin})` }))}
        />
        {selected === undefined ? null : <p className="muted">{selected.description}</p>}
        <div
          role="tablist"
          aria-label="Arguments editor"
          className="tabs"
          onKeyDown={(event) => {
            // WAI-ARIA tabs: the arrow keys move between tabs.
            if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
              const next = tab === 'form' ? 'json' : 'form';
              switchTab(next);
              document.getElementById(`tab-${next}`)?.focus();
            }
          }}
        >
          <button
            type="button"
            role="tab"
            id="tab-form"
            aria-controls="panel-form"
            aria-selected={tab === 'form'}
            tabIndex={tab === 'form' ? 0 : -1}
            onClick={() => switchTab('form')}
          >
            Form
          </button>
          <button
            type="button"
            role="tab"
            id="tab-json"
            aria-controls="panel-json"
            aria-selected={tab === 'json'}
            tabIndex={tab === 'json' ? 0 : -1}
            onClick={() => switchTab('json')}
          >
            Raw JSON
          </button>
        </div>
        {tab === 'form' ? (
          <div role="tabpanel" id="panel-form" aria-labelledby="tab-form">
            <SchemaForm
              fields={fields}
              drafts={drafts}
              errors={fieldErrors}
              onChange={(name, draft) => setDrafts((current) => ({ ...current, [name]: draft }))}
            />
          </div>
        ) : (
          <div role="tabpanel" id="panel-json" aria-labelledby="tab-json">
            <TextField
              label="Arguments (JSON)"
              value={rawJson}
              onValue={setRawJson}
              multiline
              error={rawError}
            />
          </div>
        )}
        <button type="submit" disabled={running || toolName === ''}>
          Run
        </button>
      </form>
      <div aria-live="polite">{running ? <p aria-busy="true">Running {toolName}…</p> : null}</div>
      {outcome === undefined ? null : <RunOutcome outcome={outcome} />}
    </section>
  );
}

function RunOutcome({ outcome }: { outcome: Outcome }) {
  if (outcome.kind === 'error') {
    const { error } = outcome;
    return (
      <div className="run-outcome" aria-label="Run result">
        <h3>Error</h3>
        <ErrorNotice error={error} />
        {error instanceof ApiError ? <pre className="json">{prettyJson(error.details)}</pre> : null}
        <p>Duration: {outcome.elapsedMs.toFixed(0)} ms (measured in the browser)</p>
      </div>
    );
  }
  const { value } = outcome;
  return (
    <div className="run-outcome" aria-label="Run result">
      <p>
        Duration: <strong>{value.durationMs.toFixed(1)} ms</strong>
        {value.truncated ? ' · the text for the model was truncated' : ''}
      </p>
      <h3>Structured result</h3>
      <pre className="json" aria-label="Structured result">
        {prettyJson(value.result)}
      </pre>
      <h3>Text the model receives</h3>
      <pre className="json" aria-label="Text the model receives">
        {value.output}
      </pre>
    </div>
  );
}
