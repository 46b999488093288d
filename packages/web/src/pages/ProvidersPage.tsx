import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import type { ProviderConfig, ProviderConfigBody } from '../api/types';
import { formatDate } from '../api/format';
import { useResource } from '../api/use-resource';
import { EmptyRow } from '../components/EmptyRow';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { fieldOfError, SelectField, TextField } from '../components/TextField';
import { useAction } from '../components/useAction';

export const PROVIDER_KINDS = [
  'openai',
  'openai-chat',
  'anthropic',
  'gemini',
] as const satisfies readonly ProviderConfigBody['provider'][];

interface Draft {
  name: string;
  provider: ProviderConfigBody['provider'];
  baseUrl: string;
  defaultModel: string;
  apiKeySecret: string;
}

const EMPTY: Draft = { name: '', provider: 'openai', baseUrl: '', defaultModel: '', apiKeySecret: '' };

function draftOf(config: ProviderConfig): Draft {
  return {
    name: config.name,
    provider: (PROVIDER_KINDS as readonly string[]).includes(config.provider)
      ? (config.provider as Draft['provider'])
      : 'openai',
    baseUrl: config.baseUrl ?? '',
    defaultModel: config.defaultModel,
    apiKeySecret: config.apiKeySecret ?? '',
  };
}

export default function ProvidersPage() {
  const list = useResource(() => call(api.GET('/api/providers')));
  const secrets = useResource(() => call(api.GET('/api/secrets')));
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const action = useAction();
  const errorField = fieldOfError(action.error);
  const at = (field: keyof Draft) =>
    errorField === field && action.error instanceof Error ? action.error.message : undefined;
  const set = (field: keyof Draft) => (value: string) =>
    setDraft((current) => ({ ...current, [field]: value }));

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const body = {
      ...(draft.name.trim() === '' ? {} : { name: draft.name.trim() }),
      provider: draft.provider,
      baseUrl: draft.baseUrl.trim() === '' ? null : draft.baseUrl.trim(),
      defaultModel: draft.defaultModel.trim(),
      apiKeySecret: draft.apiKeySecret === '' ? null : draft.apiKeySecret,
    };
    const ok = await action.run(() =>
      editing === undefined
        ? call(api.POST('/api/providers', { body }))
        : call(api.PATCH('/api/providers/{providerId}', { params: { path: { providerId: editing } }, body })),
    );
    if (ok) {
      setDraft(EMPTY);
      setEditing(undefined);
      await list.reload();
    }
  };

  return (
    <Page
      title="Providers"
      intro="Model providers your chats can use. The API key is one of your secrets, named here; the key itself never appears."
    >
      <form className="card" onSubmit={save} aria-labelledby="provider-form-title" noValidate>
        <h2 id="provider-form-title">{editing === undefined ? 'Add a provider' : `Edit ${draft.name}`}</h2>
        <TextField
          label="Name"
          value={draft.name}
          onValue={set('name')}
          hint="What a chat turn names; default: the provider kind."
          error={at('name')}
        />
        <SelectField
          label="Provider kind"
          value={draft.provider}
          onValue={set('provider')}
          options={PROVIDER_KINDS.map((kind) => ({ value: kind, label: kind }))}
          hint="openai is the Responses API; openai-chat is Chat Completions (Ollama, vLLM, OpenRouter …)."
        />
        <TextField
          label="Base URL"
          value={draft.baseUrl}
          onValue={set('baseUrl')}
          type="url"
          hint="Empty: the provider's own API."
          error={at('baseUrl')}
        />
        <TextField
          label="Default model"
          value={draft.defaultModel}
          onValue={set('defaultModel')}
          error={at('defaultModel')}
        />
        <SelectField
          label="API key secret"
          value={draft.apiKeySecret}
          onValue={set('apiKeySecret')}
          options={[
            { value: '', label: '(none)' },
            ...(secrets.data?.secrets ?? []).map((secret) => ({ value: secret.name, label: secret.name })),
          ]}
          hint="Add the key on the Secrets page first."
        />
        <div className="actions">
          <button type="submit" disabled={action.busy}>
            {editing === undefined ? 'Add provider' : 'Save provider'}
          </button>
          {editing === undefined ? null : (
            <button
              type="button"
              className="secondary"
              onClick={() => (setEditing(undefined), setDraft(EMPTY))}
            >
              Cancel editing
            </button>
          )}
        </div>
        {errorField === undefined ? <ErrorNotice error={action.error} /> : null}
      </form>
      <ErrorNotice error={list.error} />
      <table>
        <caption>Your providers</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Model</th>
            <th scope="col">Base URL</th>
            <th scope="col">Key secret</th>
            <th scope="col">Updated</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.providers ?? []).map((config) => (
            <tr key={config.id}>
              <td>{config.name}</td>
              <td>{config.provider}</td>
              <td>{config.defaultModel}</td>
              <td>{config.baseUrl ?? 'default'}</td>
              <td>{config.apiKeySecret ?? '—'}</td>
              <td>{formatDate(config.updatedAt)}</td>
              <td className="row-actions">
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Edit ${config.name}`}
                  onClick={() => (setEditing(config.id), setDraft(draftOf(config)))}
                >
                  Edit
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Delete ${config.name}`}
                  onClick={() =>
                    void action.run(async () => {
                      await call(
                        api.DELETE('/api/providers/{providerId}', {
                          params: { path: { providerId: config.id } },
                        }),
                      );
                      await list.reload();
                    })
                  }
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
          <EmptyRow show={list.data?.providers.length === 0} columns={7}>
            No providers yet.
          </EmptyRow>
        </tbody>
      </table>
    </Page>
  );
}
