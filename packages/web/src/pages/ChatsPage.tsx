import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { formatDate } from '../api/format';
import type { Chat } from '../api/types';
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
  const [agentId, setAgentId] = useState('');
  const [editing, setEditing] = useState<Chat | undefined>(undefined);
  const agents = useResource(() => call(api.GET('/api/agents')));
  const action = useAction();
  const startEdit = (chat: Chat | undefined) => {
    setEditing(chat);
    setTitle(chat?.title ?? '');
    setWorkingDirectory(chat?.workingDirectory ?? '');
    setMode(chat?.mode ?? 'chat');
    setAgentId(chat?.agentId ?? '');
  };
  const chats = list.data?.chats ?? [];
  const { visible, pager } = usePage(chats, 20);
  const errorField = fieldOfError(action.error);
  const directoryError =
    errorField === 'workingDirectory' && action.error instanceof Error ? action.error.message : undefined;

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await action.run(() =>
      editing === undefined
        ? call(
            api.POST('/api/chats', {
              body: {
                ...(title.trim() === '' ? {} : { title: title.trim() }),
                ...(workingDirectory.trim() === '' ? {} : { workingDirectory: workingDirectory.trim() }),
                mode,
                ...(agentId === '' ? {} : { agentId }),
              },
            }),
          )
        : call(
            api.PATCH('/api/chats/{chatId}', {
              params: { path: { chatId: editing.id } },
              body: {
                title: title.trim(),
                workingDirectory: workingDirectory.trim() === '' ? null : workingDirectory.trim(),
                mode,
                agentId: agentId === '' ? null : agentId,
              },
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
      title="Chats"
      intro="A chat has a working directory, where filesystem and shell tools resolve paths and run, and a mode (chat or agent) that tools receive with every call."
    >
      <form className="card" onSubmit={create} aria-labelledby="chat-form-title" noValidate>
        <h2 id="chat-form-title">
          {editing === undefined ? 'New chat' : `Edit ${editing.title === '' ? editing.id : editing.title}`}
        </h2>
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
        <SelectField
          label="Agent"
          value={agentId}
          onValue={setAgentId}
          options={[
            { value: '', label: '(no agent)' },
            ...(agents.data?.agents ?? []).map((agent) => ({ value: agent.id, label: agent.name })),
          ]}
        />
        <div className="actions">
          <button type="submit" disabled={action.busy}>
            {editing === undefined ? 'Create chat' : 'Save chat'}
          </button>
          {editing === undefined ? null : (
            <button type="button" className="secondary" onClick={() => startEdit(undefined)}>
              Cancel editing
            </button>
          )}
        </div>
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
            <th scope="col">Agent</th>
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
              <td>
                {chat.agentId === null
                  ? '—'
                  : ((agents.data?.agents ?? []).find((agent) => agent.id === chat.agentId)?.name ??
                    chat.agentId)}
              </td>
              <td>{formatDate(chat.updatedAt)}</td>
              <td className="row-actions">
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Edit ${chat.title === '' ? chat.id : chat.title}`}
                  onClick={() => startEdit(chat)}
                >
                  Edit
                </button>
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
          <EmptyRow show={chats.length === 0 && list.data !== undefined} columns={6}>
            No chats yet.
          </EmptyRow>
        </tbody>
      </table>
      {pager}
    </Page>
  );
}
