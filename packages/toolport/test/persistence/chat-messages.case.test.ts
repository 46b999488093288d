import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { createRepositories, type Repositories } from '../../src/persistence/repositories.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';

describe.each(TEST_ENGINES)('PROV-4 chat transcript storage on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let repositories: Repositories;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await target.open();
    repositories = createRepositories(database);
  });
  afterAll(async () => {
    await target?.dispose();
  });

  it('keeps every message of concurrent turns on one chat, in whole turns, with unique positions', async () => {
    const user = await repositories.users.create({ name: `transcript-${engine}` });
    const chat = await repositories.chats.create(user.id, { mode: 'chat' });
    await Promise.all(
      Array.from({ length: 3 }, (_, turn) =>
        repositories.chatMessages.append(chat.id, [
          { role: 'user', content: `question ${turn}` },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: `call_${turn}`, name: 'clock', arguments: '{}' }],
          },
          {
            role: 'tool',
            toolCallId: `call_${turn}`,
            toolName: 'clock',
            content: '{"ok":true}',
            isError: false,
          },
          { role: 'assistant', content: `answer ${turn}`, toolCalls: [] },
        ]),
      ),
    );
    const stored = await repositories.chatMessages.list(chat.id);
    expect(stored.map((message) => message.position)).toEqual(
      Array.from({ length: 12 }, (_, index) => index),
    );
    for (let start = 0; start < 12; start += 4) {
      const turn = stored.slice(start, start + 4).map((entry) => entry.message);
      const number = /question (\d)/.exec((turn[0] as { content: string }).content)![1];
      expect(turn).toEqual([
        { role: 'user', content: `question ${number}` },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: `call_${number}`, name: 'clock', arguments: '{}' }],
        },
        {
          role: 'tool',
          toolCallId: `call_${number}`,
          toolName: 'clock',
          content: '{"ok":true}',
          isError: false,
        },
        { role: 'assistant', content: `answer ${number}`, toolCalls: [] },
      ]);
    }
    expect(await repositories.chats.delete(user.id, chat.id)).toBe(true);
    expect(await repositories.chatMessages.list(chat.id)).toEqual([]);
  });
});
