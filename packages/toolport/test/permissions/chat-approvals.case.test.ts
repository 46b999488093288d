import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandboxScratch } from '../support/sandbox-scratch.ts';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import type { StreamEvent } from '../../src/providers/stream-events.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep } from '../providers/scripted-streams.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown>;
type User = Awaited<ReturnType<typeof createTestUser>>;

function parseSse(body: string): StreamEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      return JSON.parse(data!.slice('data: '.length)) as StreamEvent;
    });
}

const DONE_WHEN_RULE = { '*': 'ask', 'git status*': 'allow', 'rm -rf *': 'deny' };

const bashCall = (id: string, command: string) => ({
  id,
  name: 'bash',
  arguments: JSON.stringify({ command }),
});

describe.each(TEST_ENGINES)('issue 16 permissions and approval in chat turns on %s', (engine) => {
  let target: TestDatabaseTarget;
  let database: ToolportDatabase;
  let second: ToolportDatabase;
  let server: TestServer;
  /** Another instance on the same database: answers may reach it instead of the one running the turn. */
  let other: TestServer;
  let fake: FakeProviderServer;
  let workdir: string;

  const call = async (
    on: TestServer,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    url: string,
    who: User,
    payload?: unknown,
  ) => {
    const response = await on.app.inject({
      method,
      url,
      headers: who.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return {
      status: response.statusCode,
      raw: response.body,
      body: (String(response.headers['content-type']).includes('json') ? response.json() : {}) as Json,
    };
  };

  const setUp = async (name: string, rule: unknown = DONE_WHEN_RULE, extra: Json = {}) => {
    const user = await createTestUser(server.services, name);
    expect((await call(server, 'PUT', '/api/secrets/KEY', user, { value: `sk-${name}-secret` })).status).toBe(
      200,
    );
    const created = await call(server, 'POST', '/api/providers', user, {
      name: 'chat',
      provider: 'openai-chat',
      baseUrl: fake.baseURLFor('openai-chat'),
      defaultModel: 'test-model',
      apiKeySecret: 'KEY',
    });
    expect(created.status).toBe(201);
    const put = await call(server, 'PUT', '/api/settings/tools/bash', user, {
      enabled: true,
      permission: rule,
      ...extra,
    });
    expect(put.status).toBe(200);
    const chat = await call(server, 'POST', '/api/chats', user, { workingDirectory: workdir });
    return { user, chatId: String(chat.body.id) };
  };

  /** Starts a turn (its SSE body arrives when it ends). */
  const startTurn = (user: User, chatId: string, message = 'go') =>
    call(server, 'POST', `/api/chats/${chatId}/turns`, user, { message }).then((response) => {
      expect(response.status).toBe(200);
      return parseSse(response.raw);
    });

  const waitForPending = async (user: User, chatId: string, callId: string) => {
    await expect
      .poll(
        async () =>
          (await server.services.repositories.toolApprovals.findLatest(user.id, chatId, callId))?.status,
        {
          timeout: 10_000,
          interval: 20,
        },
      )
      .toBe('pending');
  };

  const toolResults = (events: StreamEvent[]) =>
    new Map(
      events
        .filter(
          (event): event is Extract<StreamEvent, { type: 'tool_result' }> => event.type === 'tool_result',
        )
        .map((event) => [event.id, event]),
    );

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await target.open();
    second = await target.open();
    fake = await FakeProviderServer.start();
    const services = { providerMaxRetries: 0, approvalPollIntervalMs: 25 };
    server = await startTestServer(database, { services });
    other = await startTestServer(second, { services });
    workdir = makeSandboxScratch('toolport-approvals-', ['build']);
  });
  afterAll(async () => {
    await server?.close();
    await other?.close();
    await fake?.close();
    await target?.dispose();
    rmSync(workdir, { recursive: true, force: true });
  });

  it('settings take, validate and return the rule; 422 on a bad one', async () => {
    const { user } = await setUp('rules');
    const got = await call(server, 'GET', '/api/settings/tools/bash', user);
    expect(got.body.permission).toEqual(DONE_WHEN_RULE);
    expect(Object.keys(got.body.permission as Json)).toEqual(Object.keys(DONE_WHEN_RULE));
    expect(got.body.approvalTimeoutSeconds).toBe(300);
    for (const bad of ['maybe', { '*': 'sometimes' }, {}, ['ask'], 3]) {
      const response = await call(server, 'PUT', '/api/settings/tools/bash', user, { permission: bad });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ error: { code: 'invalid_settings' } });
    }
    expect(
      (await call(server, 'PUT', '/api/settings/tools/bash', user, { approvalTimeoutSeconds: 4 })).status,
    ).toBe(422);
    expect(
      (await call(server, 'PUT', '/api/settings/tools/bash', user, { approvalTimeoutSeconds: 3601 })).status,
    ).toBe(422);
    const reset = await call(server, 'PUT', '/api/settings/tools/bash', user, { permission: null });
    expect(reset.body.permission).toBe('allow');
    expect(
      (await call(server, 'PUT', '/api/settings/tools/read_file', user, { permission: 'ask' })).body
        .permission,
    ).toBe('ask');
  });

  it('Done when: git status runs at once, touch waits for approval (answered on another instance), rm -rf is refused unasked, a deny reaches the model, an always is remembered', async () => {
    const { user, chatId } = await setUp('done-when');
    mkdirSync(join(workdir, 'build'), { recursive: true });
    // The capability inspector shows which tools would ask.
    const inspected = await call(server, 'GET', `/api/chats/${chatId}/capabilities`, user);
    const tools = inspected.body.tools as Json[];
    expect(tools.find((tool) => tool.name === 'bash')?.permission).toEqual({
      user: DONE_WHEN_RULE,
      agent: null,
      mayAsk: true,
      alwaysDenied: false,
    });
    expect((tools.find((tool) => tool.name === 'read_file')?.permission as Json).mayAsk).toBe(false);
    const since = fake.requests.length;
    fake.enqueue(
      'openai-chat',
      scriptStep('openai-chat', {
        toolCalls: [
          bashCall('call_git', 'git status'),
          bashCall('call_touch', 'touch build/x'),
          bashCall('call_rm', 'rm -rf build'),
        ],
      }),
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const first = startTurn(user, chatId);
    await waitForPending(user, chatId, 'call_touch');
    // The answer reaches the other instance; the one running the turn sees it through the table.
    const denied = await call(other, 'POST', `/api/chats/${chatId}/approvals/call_touch`, user, {
      decision: 'deny',
      message: 'not in build/ please',
    });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'denied', decidedBy: `user:${user.id}` });
    const events = await first;
    const asked = events.filter((event) => event.type === 'approval_requested');
    expect(asked).toEqual([
      {
        type: 'approval_requested',
        callId: 'call_touch',
        toolName: 'bash',
        arguments: { command: 'touch build/x' },
        reason: '"*": "ask"',
      },
    ]);
    const startedIndex = events.findIndex(
      (event) => event.type === 'tool_call_started' && event.id === 'call_touch',
    );
    expect(startedIndex).toBeGreaterThanOrEqual(0);
    const results = toolResults(events);
    expect(results.get('call_git')?.error).toBeUndefined();
    expect(results.get('call_rm')?.error).toMatchObject({ code: 'permission_denied' });
    expect(results.get('call_rm')?.error?.message).toContain('rm -rf *');
    expect(results.get('call_touch')?.error).toMatchObject({ code: 'permission_denied' });
    expect(results.get('call_touch')?.output).toContain('not in build/ please');
    expect(existsSync(join(workdir, 'build', 'x'))).toBe(false);
    expect(existsSync(join(workdir, 'build'))).toBe(true);
    // The model read the refusal (the second request carries the tool messages).
    const followUp = fake.requests.slice(since).filter((recorded) => recorded.format === 'openai-chat')[1]!;
    const toolMessages = (followUp.body.messages as Json[]).filter((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessages)).toContain('not in build/ please');

    // A second answer is a conflict; another user's answer is a 404.
    expect(
      (await call(server, 'POST', `/api/chats/${chatId}/approvals/call_touch`, user, { decision: 'approve' }))
        .status,
    ).toBe(409);
    const bob = await createTestUser(server.services, 'bob');
    expect(
      (await call(server, 'POST', `/api/chats/${chatId}/approvals/call_touch`, bob, { decision: 'approve' }))
        .status,
    ).toBe(404);
    expect(
      (await call(server, 'POST', `/api/chats/${chatId}/approvals/call_nope`, user, { decision: 'approve' }))
        .status,
    ).toBe(404);

    // Approve with `always`: the exact command becomes an allow rule, and the next identical call runs unasked.
    fake.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [bashCall('call_touch2', 'touch build/x')] }),
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const second = startTurn(user, chatId);
    await waitForPending(user, chatId, 'call_touch2');
    const approved = await call(other, 'POST', `/api/chats/${chatId}/approvals/call_touch2`, user, {
      decision: 'approve',
      remember: 'always',
    });
    expect(approved.body).toMatchObject({ status: 'approved', remember: 'always' });
    const secondEvents = await second;
    expect(toolResults(secondEvents).get('call_touch2')?.error).toBeUndefined();
    expect(existsSync(join(workdir, 'build', 'x'))).toBe(true);
    const settings = await call(server, 'GET', '/api/settings/tools/bash', user);
    expect(settings.body.permission).toEqual({ ...DONE_WHEN_RULE, 'touch build/x': 'allow' });

    fake.enqueue(
      'openai-chat',
      scriptStep('openai-chat', { toolCalls: [bashCall('call_touch3', 'touch build/x')] }),
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const third = await startTurn(user, chatId);
    expect(third.some((event) => event.type === 'approval_requested')).toBe(false);
    expect(toolResults(third).get('call_touch3')?.error).toBeUndefined();

    // Audit: every decision is recorded with its execution.
    await server.services.flush();
    const executions = (await call(server, 'GET', `/api/executions?chatId=${chatId}`, user)).body
      .executions as Json[];
    const byCall = new Map(
      executions.map((execution) => [execution.callId, execution.approval as Json | null]),
    );
    expect(byCall.get('call_git')).toMatchObject({
      decision: 'approve',
      decidedBy: 'rule',
      rule: '"git status*": "allow"',
    });
    expect(byCall.get('call_rm')).toMatchObject({
      decision: 'deny',
      decidedBy: 'rule',
      rule: '"rm -rf *": "deny"',
    });
    expect(byCall.get('call_touch')).toMatchObject({
      decision: 'deny',
      decidedBy: `user:${user.id}`,
      rule: '"*": "ask"',
      remember: 'call',
    });
    expect(byCall.get('call_touch2')).toMatchObject({
      decision: 'approve',
      decidedBy: `user:${user.id}`,
      remember: 'always',
    });
    expect(byCall.get('call_touch3')).toMatchObject({
      decision: 'approve',
      decidedBy: 'rule',
      rule: '"touch build/x": "allow"',
    });
    expect(typeof byCall.get('call_git')?.decidedAt).toBe('string');
  });

  it('remember session holds for the rest of that chat only', async () => {
    const { user, chatId } = await setUp('session', 'ask');
    fake.enqueue('openai-chat', scriptStep('openai-chat', { toolCalls: [bashCall('call_s1', 'echo one')] }));
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const first = startTurn(user, chatId);
    await waitForPending(user, chatId, 'call_s1');
    await call(server, 'POST', `/api/chats/${chatId}/approvals/call_s1`, user, {
      decision: 'approve',
      remember: 'session',
    });
    expect(toolResults(await first).get('call_s1')?.error).toBeUndefined();

    fake.enqueue('openai-chat', scriptStep('openai-chat', { toolCalls: [bashCall('call_s2', 'echo one')] }));
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const again = await startTurn(user, chatId);
    expect(again.some((event) => event.type === 'approval_requested')).toBe(false);
    expect(toolResults(again).get('call_s2')?.error).toBeUndefined();

    // Another chat asks again; the user's rule is unchanged.
    const otherChat = String(
      (await call(server, 'POST', '/api/chats', user, { workingDirectory: workdir })).body.id,
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { toolCalls: [bashCall('call_s3', 'echo one')] }));
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const elsewhere = startTurn(user, otherChat);
    await waitForPending(user, otherChat, 'call_s3');
    await call(server, 'POST', `/api/chats/${otherChat}/approvals/call_s3`, user, { decision: 'deny' });
    expect(toolResults(await elsewhere).get('call_s3')?.error).toMatchObject({ code: 'permission_denied' });
    expect((await call(server, 'GET', '/api/settings/tools/bash', user)).body.permission).toBe('ask');
  });

  it('no answer within approvalTimeoutSeconds denies; a late answer is a conflict', async () => {
    const { user, chatId } = await setUp('timeout', 'ask', { approvalTimeoutSeconds: 5 });
    fake.enqueue('openai-chat', scriptStep('openai-chat', { toolCalls: [bashCall('call_t', 'echo late')] }));
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const events = await startTurn(user, chatId);
    const result = toolResults(events).get('call_t');
    expect(result?.error).toMatchObject({ code: 'permission_denied' });
    expect(result?.error?.message).toContain('nobody approved it within 5 s');
    const late = await call(server, 'POST', `/api/chats/${chatId}/approvals/call_t`, user, {
      decision: 'approve',
    });
    expect(late.status).toBe(409);
    await server.services.flush();
    const executions = (await call(server, 'GET', `/api/executions?chatId=${chatId}`, user)).body
      .executions as Json[];
    expect(executions[0]!.approval).toMatchObject({ decision: 'deny', decidedBy: 'timeout' });
  }, 20_000);

  it("an agent's rule narrows the user's, never widens it", async () => {
    const { user, chatId } = await setUp('agent', { '*': 'allow', 'rm *': 'deny' });
    const agent = await call(server, 'POST', '/api/agents', user, { name: 'careful', config: {} });
    expect(agent.status).toBe(201);
    const agentId = String(agent.body.id);
    const patched = await call(server, 'PATCH', `/api/agents/${agentId}/tools/bash`, user, {
      enabled: true,
      permission: { '*': 'ask', 'ls*': 'allow', 'rm *': 'allow' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.permission).toEqual({ '*': 'ask', 'ls*': 'allow', 'rm *': 'allow' });
    expect(
      (await call(server, 'PATCH', `/api/agents/${agentId}/tools/bash`, user, { permission: { x: 'maybe' } }))
        .status,
    ).toBe(422);
    await call(server, 'PATCH', `/api/chats/${chatId}`, user, { agentId });
    fake.enqueue(
      'openai-chat',
      scriptStep('openai-chat', {
        toolCalls: [
          bashCall('call_ls', 'ls'),
          bashCall('call_rm2', 'rm nothing'),
          bashCall('call_echo', 'echo hi'),
        ],
      }),
    );
    fake.enqueue('openai-chat', scriptStep('openai-chat', { text: 'ok' }));
    const turn = startTurn(user, chatId);
    await waitForPending(user, chatId, 'call_echo');
    await call(server, 'POST', `/api/chats/${chatId}/approvals/call_echo`, user, { decision: 'approve' });
    const results = toolResults(await turn);
    expect(results.get('call_ls')?.error).toBeUndefined();
    expect(results.get('call_rm2')?.error).toMatchObject({ code: 'permission_denied' });
    expect(results.get('call_echo')?.error).toBeUndefined();
  });
});
