import { useEffect, useState } from 'react';
import { api, call } from '../api/client';
import type { Chat } from '../api/types';
import { useResource } from '../api/use-resource';
import { ErrorNotice } from '../components/ErrorNotice';
import { Page } from '../components/Page';
import { SelectField } from '../components/TextField';
import { ChatPanel } from './playground/ChatPanel';
import { ToolRunner } from './playground/ToolRunner';

/** Chats are where tools run (working directory, mode): the playground uses one, and makes one if there is none. */
async function chatsOrPlayground(): Promise<Chat[]> {
  const { chats } = await call(api.GET('/api/chats'));
  if (chats.length > 0) return chats;
  return [await call(api.POST('/api/chats', { body: { title: 'Playground' } }))];
}

export default function PlaygroundPage() {
  const chats = useResource(chatsOrPlayground);
  const [chatId, setChatId] = useState('');
  const first = chats.data?.[0]?.id;
  useEffect(() => {
    // A default only: a chat picked before this effect ran is kept.
    if (first !== undefined) setChatId((current) => (current === '' ? first : current));
  }, [first]);

  return (
    <Page
      title="Playground"
      intro="Run any enabled tool by hand, or chat with a configured provider and watch its tool calls live."
    >
      <div className="card controls">
        <SelectField
          label="Chat"
          value={chatId}
          onValue={setChatId}
          options={(chats.data ?? []).map((chat) => ({
            value: chat.id,
            label: chat.title === '' ? chat.id : chat.title,
          }))}
          hint="Tools run in this chat's working directory and mode; the conversation below is this chat's."
        />
      </div>
      <ErrorNotice error={chats.error} />
      {chatId === '' ? null : (
        <div className="playground">
          <ToolRunner chatId={chatId} />
          <ChatPanel chatId={chatId} />
        </div>
      )}
    </Page>
  );
}
