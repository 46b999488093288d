import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolExecutionRecord } from '../../src/core/execution-recorder.ts';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import { createRepositories, type Repositories } from '../../src/persistence/repositories.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';

/** Issue 11 / CORE-6: audit rows are written in batches off the call's path, and none is lost on flush. */
describe.each(TEST_ENGINES)('CORE-6 batched audit rows on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let repositories: Repositories;

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await target.open();
    repositories = createRepositories(database);
  });
  afterAll(async () => {
    await database?.close();
    await target?.dispose();
  });

  const stored = async (userId: string): Promise<number> =>
    (await database.db.selectFrom('tool_executions').select('id').where('user_id', '=', userId).execute())
      .length;

  it('queues records (no write during the call) and stores every one, in one or more batches, on flush', async () => {
    const userId = `audit-${engine}`;
    const record = (index: number): ToolExecutionRecord => ({
      callId: `call-${index}`,
      toolName: 'grep',
      userId,
      chatId: undefined,
      agentId: undefined,
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index % 60)),
      durationMs: index,
      outcome: index % 7 === 0 ? 'timeout' : 'ok',
      resultSize: index * 10,
    });
    for (let index = 0; index < 450; index += 1) repositories.toolExecutions.record(record(index));
    expect(await stored(userId)).toBe(0);
    await repositories.toolExecutions.flush();
    expect(await stored(userId)).toBe(450);
    const queried = await repositories.toolExecutions.query({ userId, toolName: 'grep', limit: 1000 });
    expect(queried).toHaveLength(450);
    expect(queried.find((entry) => entry.callId === 'call-7')).toMatchObject({
      outcome: 'timeout',
      durationMs: 7,
      resultSize: 70,
    });
  });

  it('lets query() read this process’s own records without an explicit flush', async () => {
    const userId = `audit-read-${engine}`;
    repositories.toolExecutions.record({
      callId: 'one',
      toolName: 'glob',
      userId,
      chatId: undefined,
      agentId: undefined,
      startedAt: new Date(),
      durationMs: 1,
      outcome: 'ok',
      resultSize: 2,
    });
    expect(await repositories.toolExecutions.query({ userId })).toHaveLength(1);
  });
});
