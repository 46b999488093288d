import { useEffect, useState } from 'react';
import { api, call } from '../api/client';
import { prettyJson } from '../api/format';
import type { Capabilities, InspectorProvider, ProviderConfig } from '../api/types';
import { useResource } from '../api/use-resource';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { SelectField } from '../components/TextField';
import { useAction } from '../components/useAction';
import { diffCapabilities } from './capability-diff';

export const WIRE_FORMATS = [
  'openai',
  'openai-chat',
  'anthropic',
  'gemini',
  'gemini-interactions',
] as const satisfies readonly InspectorProvider[];

/** A provider choice: one of your configurations (its wire format and model), or a bare wire format. */
interface ProviderChoice {
  value: string;
  label: string;
  format: InspectorProvider;
  model?: string;
}

function providerChoices(configs: readonly ProviderConfig[]): ProviderChoice[] {
  const formats = new Set<string>(WIRE_FORMATS);
  const fromConfigs = configs
    .filter((config) => formats.has(config.provider))
    .map((config) => ({
      value: config.name,
      label: `${config.name} (${config.provider}, ${config.defaultModel})`,
      format: config.provider as InspectorProvider,
      model: config.defaultModel,
    }));
  const names = new Set(fromConfigs.map((choice) => choice.value));
  return [
    ...fromConfigs,
    ...WIRE_FORMATS.filter((format) => !names.has(format)).map((format) => ({
      value: format,
      label: `${format} (wire format)`,
      format,
    })),
  ];
}

function capabilities(chatId: string, choice: ProviderChoice, agent: string): Promise<Capabilities> {
  return call(
    api.GET('/api/chats/{chatId}/capabilities', {
      params: {
        path: { chatId },
        query: {
          provider: choice.format,
          ...(choice.model === undefined ? {} : { model: choice.model }),
          ...(agent === '' ? {} : { agent }),
        },
      },
    }),
  );
}

/** MCP-3: exactly the tools a provider would receive for a chat and agent, computed as a turn computes them. */
export default function InspectorPage() {
  const chats = useResource(() => call(api.GET('/api/chats')));
  const agents = useResource(() => call(api.GET('/api/agents')));
  const providers = useResource(() => call(api.GET('/api/providers')));
  const [chatId, setChatId] = useState('');
  const [provider, setProvider] = useState<string>('openai');
  const [agent, setAgent] = useState('');
  const [compareWith, setCompareWith] = useState<string>('');
  const create = useAction();

  const firstChat = chats.data?.chats[0]?.id;
  useEffect(() => {
    // A default only: a chat picked before this effect ran is kept.
    if (firstChat !== undefined) setChatId((current) => (current === '' ? firstChat : current));
  }, [firstChat]);

  const choices = providerChoices(providers.data?.providers ?? []);
  const choiceOf = (value: string) => choices.find((choice) => choice.value === value);
  const first = choiceOf(provider);
  const second = compareWith === '' ? undefined : choiceOf(compareWith);
  const key = `${chatId}|${JSON.stringify(first)}|${agent}|${JSON.stringify(second)}`;
  const result = useResource(async () => {
    if (chatId === '' || first === undefined) return undefined;
    const [one, other] = await Promise.all([
      capabilities(chatId, first, agent),
      second === undefined ? Promise.resolve(undefined) : capabilities(chatId, second, agent),
    ]);
    return { first: one, second: other };
  }, key);

  const providerOptions = choices.map(({ value, label }) => ({ value, label }));

  return (
    <Page
      title="Inspector"
      intro="The exact tool list a provider would receive for a chat: wire names, wire schemas, and whether strict mode applies."
    >
      <p className="notice" role="note">
        Opening the inspector may start your enabled MCP servers: it lists tools the same way a chat turn
        does, so a stdio server is spawned and a remote one connected. Disable a server to keep it from
        starting.
      </p>
      <div className="card controls">
        <SelectField
          label="Chat"
          value={chatId}
          onValue={setChatId}
          options={[
            ...(chatId === '' ? [{ value: '', label: '(no chat)' }] : []),
            ...(chats.data?.chats ?? []).map((chat) => ({
              value: chat.id,
              label: chat.title === '' ? chat.id : chat.title,
            })),
          ]}
        />
        <SelectField label="Provider" value={provider} onValue={setProvider} options={providerOptions} />
        <SelectField
          label="Agent"
          value={agent}
          onValue={setAgent}
          options={[
            { value: '', label: "(the chat's agent, if any)" },
            ...(agents.data?.agents ?? []).map((item) => ({ value: item.id, label: item.name })),
          ]}
        />
        <SelectField
          label="Compare with"
          value={compareWith}
          onValue={setCompareWith}
          options={[
            { value: '', label: '(no comparison)' },
            ...providerOptions.filter((option) => option.value !== provider),
          ]}
          hint="A second provider: the page lists what differs."
        />
      </div>
      {chats.data?.chats.length === 0 ? (
        <p>
          The inspector works on a chat (its working directory and mode decide some tools).{' '}
          <button
            type="button"
            onClick={() =>
              void create.run(async () => {
                const chat = await call(api.POST('/api/chats', { body: { title: 'Inspector' } }));
                await chats.reload();
                setChatId(chat.id);
              })
            }
          >
            Create a chat
          </button>
        </p>
      ) : null}
      <ErrorNotice error={chats.error ?? result.error ?? create.error} />
      {result.data === undefined ? null : (
        <CapabilityView first={result.data.first} second={result.data.second} />
      )}
    </Page>
  );
}

function CapabilityView({ first, second }: { first: Capabilities; second: Capabilities | undefined }) {
  const diff =
    second === undefined
      ? []
      : diffCapabilities(first.tools, second.tools).filter((row) => row.change !== 'same');
  return (
    <>
      {second === undefined ? null : (
        <section aria-labelledby="diff-title" className="card">
          <h2 id="diff-title">
            Differences between {first.provider} and {second.provider}
          </h2>
          {diff.length === 0 ? (
            <p>Both receive the same tools with the same schemas.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Change</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {diff.map((row) => (
                  <tr key={row.name}>
                    <td>
                      <code>{row.name}</code>
                    </td>
                    <td>{row.change.replace('first', first.provider).replace('second', second.provider)}</td>
                    <td>{row.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
      <section aria-labelledby="tools-title">
        <h2 id="tools-title">
          {first.tools.length === 1 ? '1 tool' : `${first.tools.length} tools`} for {first.provider}
        </h2>
        <table className="capabilities">
          <thead>
            <tr>
              <th scope="col">Wire name</th>
              <th scope="col">Source</th>
              <th scope="col">Strict</th>
              <th scope="col">Wire schema</th>
            </tr>
          </thead>
          <tbody>
            {first.tools.map((tool) => (
              <tr key={tool.name}>
                <td>
                  <code>{tool.name}</code>
                </td>
                <td>{tool.origin}</td>
                <td>
                  {tool.strict
                    ? 'strict'
                    : `not strict${tool.nonStrictReason === undefined ? '' : `: ${tool.nonStrictReason}`}`}
                </td>
                <td>
                  <details>
                    <summary>Schema of {tool.name}</summary>
                    <pre className="json">{prettyJson(tool.wire)}</pre>
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {first.mcpServers.length === 0 ? null : (
        <section aria-labelledby="inspector-mcp">
          <h2 id="inspector-mcp">MCP servers</h2>
          <ul>
            {first.mcpServers.map((server) => (
              <li key={server.serverId}>
                {server.name}: {server.enabled ? server.status.state : 'disabled'}
                {server.status.toolCount === undefined ? '' : `, ${server.status.toolCount} tools`}
                {server.status.lastError === undefined
                  ? ''
                  : ` (last error: ${server.status.lastError.message})`}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
