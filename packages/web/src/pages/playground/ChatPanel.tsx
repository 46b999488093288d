import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, call, errorMessage } from '../../api/client';
import { prettyJson } from '../../api/format';
import { streamTurn } from '../../api/sse';
import type { ChatMessage } from '../../api/types';
import { useResource } from '../../api/use-resource';
import { ErrorNotice } from '../../components/ErrorNotice';
import { SelectField } from '../../components/TextField';
import { appendToLog, applyTurnEvent, type EventLogLine, type TurnItem } from './turn-view';

function historyItems(messages: readonly ChatMessage[]): TurnItem[] {
  const items: TurnItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') items.push({ kind: 'user', text: message.content });
    else if (message.role === 'assistant') {
      if (message.content !== '') items.push({ kind: 'text', text: message.content });
      for (const toolCall of message.toolCalls ?? [])
        items.push({
          kind: 'tool',
          id: toolCall.id,
          name: toolCall.name,
          arguments: toolCall.arguments,
          state: 'completed',
        });
    } else {
      const index = items.findIndex((item) => item.kind === 'tool' && item.id === message.toolCallId);
      const item = items[index];
      if (item?.kind === 'tool')
        items[index] = {
          ...item,
          state: message.isError === true ? 'error' : 'result',
          output: message.content,
        };
    }
  }
  return items;
}

/** A chat turn over SSE with any configured provider; tool calls show as they stream. */
export function ChatPanel({ chatId }: { chatId: string }) {
  const providers = useResource(() => call(api.GET('/api/providers')));
  const history = useResource(
    () => call(api.GET('/api/chats/{chatId}/messages', { params: { path: { chatId } } })),
    chatId,
  );
  const [provider, setProvider] = useState('');
  const [message, setMessage] = useState('');
  const [items, setItems] = useState<TurnItem[]>([]);
  const [log, setLog] = useState<EventLogLine[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const controller = useRef<AbortController | undefined>(undefined);
  const [streaming, setStreaming] = useState(false);

  const firstProvider = providers.data?.providers[0]?.name;
  useEffect(() => {
    // A default only: a provider picked before this effect ran is kept.
    if (firstProvider !== undefined) setProvider((current) => (current === '' ? firstProvider : current));
  }, [firstProvider]);
  useEffect(() => setItems(historyItems(history.data?.messages ?? [])), [history.data]);
  useEffect(() => () => controller.current?.abort(), []);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = message.trim();
    if (text === '' || streaming) return;
    const abort = new AbortController();
    controller.current = abort;
    setStreaming(true);
    setError(undefined);
    setMessage('');
    setLog([]);
    setItems((current) => [...current, { kind: 'user', text }]);
    try {
      for await (const turnEvent of streamTurn(
        chatId,
        { message: text, ...(provider === '' ? {} : { provider }) },
        abort.signal,
      )) {
        setItems((current) => applyTurnEvent(current, turnEvent));
        setLog((current) => appendToLog(current, turnEvent));
      }
    } catch (caught) {
      if (abort.signal.aborted)
        setItems((current) => [
          ...current,
          { kind: 'done', stopReason: 'cancelled', message: 'You cancelled the turn.' },
        ]);
      else setError(caught);
    } finally {
      setStreaming(false);
      controller.current = undefined;
    }
  };

  const noProviders = providers.data !== undefined && providers.data.providers.length === 0;
  return (
    <section className="card" aria-labelledby="chat-title">
      <h2 id="chat-title">Chat</h2>
      {noProviders ? <p>Add a provider on the Providers page to chat.</p> : null}
      <SelectField
        label="Provider"
        value={provider}
        onValue={setProvider}
        options={(providers.data?.providers ?? []).map((config) => ({
          value: config.name,
          label: `${config.name} (${config.provider}, ${config.defaultModel})`,
        }))}
      />
      <ol className="transcript" aria-label="Conversation" aria-live="polite">
        {items.map((item, index) => (
          <TranscriptItem key={index} item={item} chatId={chatId} />
        ))}
      </ol>
      <ErrorNotice error={error} />
      <form onSubmit={send} className="composer">
        <label htmlFor="chat-message">Message</label>
        <textarea
          id="chat-message"
          rows={3}
          value={message}
          onChange={(event) => setMessage(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void send(event);
          }}
        />
        <div className="actions">
          <button type="submit" disabled={streaming || message.trim() === '' || noProviders}>
            Send
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!streaming}
            onClick={() => controller.current?.abort()}
          >
            Cancel
          </button>
        </div>
      </form>
      {log.length === 0 ? null : (
        <details open>
          <summary>Event log</summary>
          <ol className="event-log" aria-label="Event log">
            {log.map((line, index) => (
              <li key={index}>
                <code>{line.label}</code>
                {line.count > 1 ? ` ×${line.count}` : ''}
              </li>
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}

type ApprovalAnswer = { decision: 'approve' | 'deny'; remember: 'call' | 'session' | 'always' };

/**
 * Issue 16: a call a permission rule marks `ask` waits in the turn until it is answered here
 * (`POST /api/chats/:id/approvals/:callId`); "Always allow" writes an allow rule for exactly this call.
 */
function ApprovalRequest({
  chatId,
  item,
}: {
  chatId: string;
  item: Extract<TurnItem, { kind: 'approval' }>;
}) {
  const [answered, setAnswered] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const toolName = String(item.detail.toolName ?? 'tool');
  const answer = async (body: ApprovalAnswer, label: string) => {
    setError(undefined);
    try {
      await call(
        api.POST('/api/chats/{chatId}/approvals/{callId}', {
          params: { path: { chatId, callId: item.id } },
          body,
        }),
      );
      setAnswered(label);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <li className="msg approval" role="status" aria-label={`Approval of ${toolName}`}>
      <span className="who">Approval requested</span> <code>{toolName}</code>{' '}
      <span className="badge">{String(item.detail.reason ?? '')}</span>
      <pre className="json">{prettyJson(item.detail.arguments ?? {})}</pre>
      {answered !== undefined ? (
        <p>{answered}</p>
      ) : (
        <div className="actions">
          <button
            type="button"
            onClick={() => void answer({ decision: 'approve', remember: 'call' }, 'Approved')}
          >
            Approve
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => void answer({ decision: 'approve', remember: 'always' }, 'Always allowed')}
          >
            Always allow
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => void answer({ decision: 'deny', remember: 'call' }, 'Denied')}
          >
            Deny
          </button>
        </div>
      )}
      <ErrorNotice error={error} />
    </li>
  );
}

function TranscriptItem({ item, chatId }: { item: TurnItem; chatId: string }) {
  switch (item.kind) {
    case 'user':
      return (
        <li className="msg user">
          <span className="who">You</span> {item.text}
        </li>
      );
    case 'text':
      return (
        <li className="msg assistant">
          <span className="who">Model</span> {item.text}
        </li>
      );
    case 'tool':
      return (
        <li
          className={`msg tool state-${item.state.replace(' ', '-')}`}
          aria-label={`Tool call ${item.name}`}
        >
          <div>
            <span className="who">Tool call</span> <code>{item.name}</code>{' '}
            <span className="badge">{item.state}</span>
          </div>
          <pre className="json" aria-label={`Arguments of ${item.name}`}>
            {item.arguments === '' ? '{}' : item.arguments}
          </pre>
          {item.output === undefined ? null : (
            <pre className="json" aria-label={`Result of ${item.name}`}>
              {item.error === undefined
                ? item.output
                : `${String(item.error.code ?? 'error')}: ${String(item.error.message ?? item.output)}`}
            </pre>
          )}
        </li>
      );
    case 'approval':
      return <ApprovalRequest chatId={chatId} item={item} />;
    case 'error':
      return (
        <li className="msg error" role="alert">
          {errorMessage(item.message)}
        </li>
      );
    case 'done':
      return (
        <li className="msg done">
          Turn ended: {item.stopReason}
          {item.message === undefined ? '' : ` — ${item.message}`}
        </li>
      );
  }
}
