import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { formatDate } from '../api/format';
import { useResource } from '../api/use-resource';
import { EmptyRow } from '../components/EmptyRow';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { usePage } from '../components/Pager';
import { fieldOfError, SelectField, TextField } from '../components/TextField';
import { useAction } from '../components/useAction';

export default function ChatsPage() {
  const list = useResource(() => call(api.GET('/api/chats')));
  const [title, setTitle] = useState('');
  const [workingDirectory, setWorkingDirectory] = useState('');
  const [mode, setMode] = useState<'chat' | 'agent'>('chat');
  const action = useAction();
  const chats = list.data?.chats ?? [];
  const { visible, pager } = usePage(chats, 20);
  const errorField = fieldOfError(action.error);
  const directoryError =
    errorField === 'workingDirectory' && action.error instanceof Error ? action.error.message : undefined;

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await action.run(() =>
      call(
        api.POST('/api/chats', {
          body: {
            ...(title.trim() === '' ? {} : { title: title.trim() }),
            ...(workingDirectory.trim() === '' ? {} : { workingDirectory: workingDirectory.trim() }),
            mode,
          },
        }),
      ),
    );
    if (ok) {
      setTitle('');
      setWorkingDirectory('');
      await list.reload();
    }
  };

  return (
    <Page
      title="Chats"
      intro="A chat has a working directory, where filesystem and shell tools resolve paths and run, and a mode (chat or agent) that tools receive with every call."
    >
      <form className="card" onSubmit={create} aria-labelledby="chat-form-title" noValidate>
        <h2 id="chat-form-title">New chat</h2>
        <TextField label="Title" value={title} onValue={setTitle} maxLength={500} />
        <TextField
          label="Working directory"
          value={workingDirectory}
          onValue={setWorkingDirectory}
          hint="An absolute path of an existing directory on the server; empty for none."
          error={directoryError}
        />
        <SelectField
          label="Mode"
          value={mode}
          onValue={(value) => setMode(value === 'agent' ? 'agent' : 'chat')}
          options={[
            { value: 'chat', label: 'chat' },
            { value: 'agent', label: 'agent' },
          ]}
        />
        <button type="submit" disabled={action.busy}>
          Create chat
        </button>
        {directoryError === undefined ? <ErrorNotice error={action.error} /> : null}
      </form>
      <ErrorNotice error={list.error} />
      <table>
        <caption>Your chats</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Mode</th>
            <th scope="col">Working directory</th>
            <th scope="col">Updated</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {visible.map((chat) => (
            <tr key={chat.id}>
              <td>{chat.title === '' ? <span className="muted">(untitled)</span> : chat.title}</td>
              <td>{chat.mode}</td>
              <td>{chat.workingDirectory ?? '—'}</td>
              <td>{formatDate(chat.updatedAt)}</td>
              <td className="row-actions">
                <button
                  type="button"
                  className="danger"
                  aria-label={`Delete ${chat.title === '' ? chat.id : chat.title}`}
                  onClick={() =>
                    void action.run(async () => {
                      await call(
                        api.DELETE('/api/chats/{chatId}', { params: { path: { chatId: chat.id } } }),
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
          <EmptyRow show={chats.length === 0 && list.data !== undefined} columns={5}>
            No chats yet.
          </EmptyRow>
        </tbody>
      </table>
      {pager}
    </Page>
  );
}
