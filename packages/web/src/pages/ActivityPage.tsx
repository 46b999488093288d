import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { formatDate } from '../api/format';
import type { ExecutionQuery } from '../api/types';
import { useResource } from '../api/use-resource';
import { EmptyRow } from '../components/EmptyRow';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { usePage } from '../components/Pager';
import { TextField } from '../components/TextField';

const FETCH_LIMIT = '1000';

/** The audit trail (CORE-6): every tool execution, newest first, filtered on the server and paged here. */
export default function ActivityPage() {
  const [filters, setFilters] = useState({ toolName: '', chatId: '', outcome: '', userId: '' });
  const [applied, setApplied] = useState(filters);
  const query: ExecutionQuery = { limit: FETCH_LIMIT };
  for (const [key, value] of Object.entries(applied))
    if (value.trim() !== '') query[key as keyof ExecutionQuery] = value.trim();
  const list = useResource(
    () => call(api.GET('/api/executions', { params: { query } })),
    JSON.stringify(applied),
  );
  const executions = list.data?.executions ?? [];
  const { visible, pager } = usePage(executions, 25, JSON.stringify(applied));
  const set = (field: keyof typeof filters) => (value: string) =>
    setFilters((current) => ({ ...current, [field]: value }));

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setApplied(filters);
  };

  return (
    <Page
      title="Activity"
      intro="Every tool call made with your token, a chat or the playground: who, what, how long, and how it ended."
    >
      <form className="card filters" onSubmit={apply} aria-label="Filters">
        <TextField label="Tool name" value={filters.toolName} onValue={set('toolName')} />
        <TextField label="Chat id" value={filters.chatId} onValue={set('chatId')} />
        <TextField
          label="Outcome"
          value={filters.outcome}
          onValue={set('outcome')}
          hint="ok or an error code, e.g. timeout"
        />
        <TextField
          label="User id"
          value={filters.userId}
          onValue={set('userId')}
          hint="Admins: another user's id, or * for everyone."
        />
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              const cleared = { toolName: '', chatId: '', outcome: '', userId: '' };
              setFilters(cleared);
              setApplied(cleared);
            }}
          >
            Clear filters
          </button>
          <button type="button" className="secondary" onClick={() => void list.reload()}>
            Refresh
          </button>
        </div>
      </form>
      <ErrorNotice error={list.error} />
      <table>
        <caption>
          {list.data === undefined
            ? 'Executions'
            : `${executions.length} executions${executions.length === Number(FETCH_LIMIT) ? ' (the latest 1000)' : ''}`}
        </caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Tool</th>
            <th scope="col">Outcome</th>
            <th scope="col">Duration</th>
            <th scope="col">Result size</th>
            <th scope="col">Chat</th>
            <th scope="col">Agent</th>
          </tr>
        </thead>
        <tbody>
          {visible.map((execution) => (
            <tr key={execution.callId}>
              <td>{formatDate(execution.startedAt)}</td>
              <td>
                <code>{execution.toolName}</code>
              </td>
              <td>
                <span className={execution.outcome === 'ok' ? 'badge ok' : 'badge failed'}>
                  {execution.outcome}
                </span>
              </td>
              <td>{execution.durationMs.toFixed(1)} ms</td>
              <td>{execution.resultSize}</td>
              <td>{execution.chatId ?? '—'}</td>
              <td>{execution.agentId ?? '—'}</td>
            </tr>
          ))}
          <EmptyRow show={executions.length === 0 && list.data !== undefined} columns={7}>
            No executions match.
          </EmptyRow>
        </tbody>
      </table>
      {pager}
    </Page>
  );
}
