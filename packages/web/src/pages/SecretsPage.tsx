import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { formatDate } from '../api/format';
import { useResource } from '../api/use-resource';
import { EmptyRow } from '../components/EmptyRow';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { usePage } from '../components/Pager';
import { TextField } from '../components/TextField';
import { useAction } from '../components/useAction';

/** Write-only secrets: the page lists names and dates; a value typed here is sent once and never shown again. */
export default function SecretsPage() {
  const list = useResource(() => call(api.GET('/api/secrets')));
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [saved, setSaved] = useState('');
  const action = useAction();
  const secrets = list.data?.secrets ?? [];
  const { visible, pager } = usePage(secrets, 20);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const secretName = name.trim();
    const ok = await action.run(() =>
      call(api.PUT('/api/secrets/{name}', { params: { path: { name: secretName } }, body: { value } })),
    );
    // The value leaves the page's memory as soon as the server has it.
    setValue('');
    if (ok) {
      setName('');
      setSaved(`Saved ${secretName}.`);
      await list.reload();
    }
  };
  const remove = (secretName: string) =>
    action.run(async () => {
      await call(api.DELETE('/api/secrets/{name}', { params: { path: { name: secretName } } }));
      setSaved(`Deleted ${secretName}.`);
      await list.reload();
    });

  return (
    <Page
      title="Secrets"
      intro="API keys and passwords that tools, providers and MCP servers reference by name ({{NAME}}). Values are write-only: no page or API response ever shows one again."
    >
      <form className="card" onSubmit={save} aria-labelledby="secret-form-title">
        <h2 id="secret-form-title">Set or replace a secret</h2>
        <TextField label="Name" value={name} onValue={setName} required maxLength={128} autoComplete="off" />
        <TextField
          label="Value"
          value={value}
          onValue={setValue}
          type="password"
          autoComplete="new-password"
          hint="Saving an existing name replaces its value."
        />
        <button type="submit" disabled={action.busy || name.trim() === ''}>
          Save secret
        </button>
        <ErrorNotice error={action.error} />
        <p className="status" aria-live="polite">
          {saved}
        </p>
      </form>
      <ErrorNotice error={list.error} />
      <table>
        <caption>Your secrets</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Created</th>
            <th scope="col">Updated</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {visible.map((secret) => (
            <tr key={secret.name}>
              <td>
                <code>{secret.name}</code>
              </td>
              <td>{formatDate(secret.createdAt)}</td>
              <td>{formatDate(secret.updatedAt)}</td>
              <td className="row-actions">
                <button
                  type="button"
                  className="secondary"
                  onClick={() => setName(secret.name)}
                  aria-label={`Replace ${secret.name}`}
                >
                  Replace
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() => void remove(secret.name)}
                  aria-label={`Delete ${secret.name}`}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
          <EmptyRow show={secrets.length === 0 && list.data !== undefined} columns={4}>
            No secrets yet.
          </EmptyRow>
        </tbody>
      </table>
      {pager}
    </Page>
  );
}
