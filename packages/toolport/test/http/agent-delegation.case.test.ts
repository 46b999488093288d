import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/providers/stream-events.ts';
import { FakeProviderServer } from '../providers/fake-provider-server.ts';
import { scriptStep, type ScriptedStep } from '../providers/scripted-streams.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { createTestUser, startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, unknown>;
type User = Awaited<ReturnType<typeof createTestUser>>;
type Event = StreamEvent & Json;

function parseSse(body: string): Event[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const data = block
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice('data: '.length);
      return JSON.parse(data ?? 'null') as Event;
    });
}

const call = (id: string, name: string, args: Json) => ({ id, name, arguments: JSON.stringify(args) });

/**
 * AGENT-1 end to end through `POST /api/chats/:id/turns`: agents with their own prompt, model and tools, agent tools
 * that delegate to them, the sub-turn's events nested under the delegating call, and every limit (depth, cycle,
 * tokens, cancellation). The fake provider answers every model call in order (one queue, Chat Completions).
 */
describe.each(TEST_ENGINES)('AGENT-1 sub-agent delegation through the chat turn API on %s', (engine) => {
  let target: TestDatabaseTarget;
  let server: TestServer;
  let fake: FakeProviderServer;
  let alice: User;
  let bob: User;

  const api = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    who: User,
    payload?: unknown,
  ) => {
    const response = await server.app.inject({
      method,
      url,
      headers: who.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    const json = String(response.headers['content-type']).includes('json') && response.body !== '';
    return { status: response.statusCode, raw: response.body, body: (json ? response.json() : {}) as Json };
  };

  const script = (...steps: ScriptedStep[]): void => {
    for (const step of steps) fake.enqueue('openai-chat', scriptStep('openai-chat', step));
  };

  const createAgent = async (who: User, name: string, config: Json): Promise<string> => {
    const created = await api('POST', '/api/agents', who, { name, description: `${name} agent`, config });
    expect(created.status, created.raw).toBe(201);
    return String(created.body.id);
  };

  const createAgentTool = async (who: User, name: string, config: Json): Promise<string> => {
    const created = await api('POST', '/api/tools/agent-tool', who, { name, config });
    expect(created.status, created.raw).toBe(201);
    return String(created.body.id);
  };

  const give = async (who: User, agentId: string, toolName: string, body: Json = { enabled: true }) => {
    const patched = await api('PATCH', `/api/agents/${agentId}/tools/${toolName}`, who, body);
    expect(patched.status, patched.raw).toBe(200);
  };

  const turn = async (who: User, chatId: string, payload: Json): Promise<Event[]> => {
    const response = await api('POST', `/api/chats/${chatId}/turns`, who, payload);
    expect(response.status, response.raw).toBe(200);
    return parseSse(response.raw);
  };

  const newChat = async (who: User, payload: Json = {}): Promise<string> => {
    const created = await api('POST', '/api/chats', who, payload);
    expect(created.status, created.raw).toBe(201);
    return String(created.body.id);
  };

  const systemPromptOf = (index: number): string =>
    String(
      ((fake.requests[index]?.body.messages ?? []) as Json[]).find((message) => message.role === 'system')
        ?.content ?? '',
    );

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    fake = await FakeProviderServer.start();
    server = await startTestServer(await target.open(), { services: { providerMaxRetries: 0 } });
    alice = await createTestUser(server.services, 'alice');
    bob = await createTestUser(server.services, 'bob');
    for (const who of [alice, bob]) {
      const created = await api('POST', '/api/providers', who, {
        name: 'local',
        provider: 'openai-chat',
        baseUrl: fake.baseURLFor('openai-chat'),
        defaultModel: 'default-model',
      });
      expect(created.status).toBe(201);
    }
  });

  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await target?.dispose();
  });

  it('validates agent configs (422 naming the key) and merges PATCH /api/agents/:id by spread', async () => {
    const bad = await api('POST', '/api/agents', alice, { name: 'broken', config: { maxIterations: 0 } });
    expect(bad.status).toBe(422);
    expect(bad.raw).toContain('config.maxIterations');
    const unknownProvider = await api('POST', '/api/agents', alice, {
      name: 'broken2',
      config: { providerConfig: 'nope' },
    });
    expect(unknownProvider.status).toBe(422);
    expect(unknownProvider.raw).toContain('config.providerConfig');

    const id = await createAgent(alice, 'writer', { systemPrompt: 'You write.', model: 'm1' });
    const patched = await api('PATCH', `/api/agents/${id}`, alice, {
      description: 'Writes things',
      config: { maxIterations: 4, model: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      description: 'Writes things',
      config: { systemPrompt: 'You write.', maxIterations: 4 },
    });
    expect((patched.body.config as Json).model).toBeUndefined();
    expect((await api('PATCH', `/api/agents/${id}`, bob, { description: 'x' })).status).toBe(404);
    expect((await api('PATCH', `/api/agents/${id}`, alice, { config: { temperature: 1 } })).status).toBe(422);
  });

  it('runs a turn with the chat’s agent (prompt, model, maxIterations) and with a per-turn `agent` override', async () => {
    const poet = await createAgent(alice, 'poet', {
      systemPrompt: 'You answer in verse.',
      model: 'poet-model',
    });
    const chatId = await newChat(alice, { agentId: poet });
    expect((await api('GET', `/api/chats/${chatId}`, alice)).body.agentId).toBe(poet);
    const before = fake.requests.length;
    script({ text: 'Roses are red.' });
    await turn(alice, chatId, { message: 'Hello' });
    expect(fake.requests[before]?.body.model).toBe('poet-model');
    expect(systemPromptOf(before)).toContain('You answer in verse.');

    const plain = await newChat(alice);
    script({ text: 'Plain.' }, { text: 'Verse.' });
    await turn(alice, plain, { message: 'Hi' });
    expect(fake.requests[before + 1]?.body.model).toBe('default-model');
    await turn(alice, plain, { message: 'Hi again', agent: poet });
    expect(fake.requests[before + 2]?.body.model).toBe('poet-model');

    // PATCH /api/chats/:id binds (and unbinds) an agent; another user's agent is refused.
    expect((await api('PATCH', `/api/chats/${plain}`, alice, { agentId: poet })).body.agentId).toBe(poet);
    expect((await api('PATCH', `/api/chats/${plain}`, alice, { agentId: null })).body.agentId).toBeNull();
    const bobsAgent = await createAgent(bob, 'bobs', {});
    expect((await api('PATCH', `/api/chats/${plain}`, alice, { agentId: bobsAgent })).status).toBe(422);
    expect(
      (await api('POST', `/api/chats/${plain}/turns`, alice, { message: 'x', agent: bobsAgent })).status,
    ).toBe(404);
  });

  it('delegates to a specialist: nested events carry parentCallId, its text is never top-level, its calls are audited under the parent', async () => {
    const lead = await createAgent(alice, 'lead', { systemPrompt: 'You lead.', model: 'lead-model' });
    const researcher = await createAgent(alice, 'researcher', {
      systemPrompt: 'You research tides.',
      model: 'research-model',
    });
    await createAgentTool(alice, 'ask_researcher', {
      targetAgentId: researcher,
      description: 'Ask the tide researcher.',
    });
    await give(alice, lead, 'ask_researcher');
    await give(alice, researcher, 'get_current_datetime');
    const chatId = await newChat(alice, { agentId: lead });

    const before = fake.requests.length;
    script(
      {
        toolCalls: [
          call('call_delegate', 'ask_researcher', {
            task: 'Find the next high tide',
            context: 'North coast',
          }),
        ],
      },
      { toolCalls: [call('call_clock', 'get_current_datetime', { timezone: 'UTC' })] },
      { text: 'High tide at 06:12.' },
      { text: 'The researcher says high tide is at 06:12.' },
    );
    const events = await turn(alice, chatId, { message: 'When is high tide?' });

    // The lead saw the agent tool; the specialist ran with its own prompt, model and tools, on the task and context.
    expect(fake.requests[before]?.body.model).toBe('lead-model');
    const leadTools = (fake.requests[before]?.body.tools as Json[]).map(
      (tool) => (tool.function as Json).name,
    );
    expect(leadTools).toEqual(['ask_researcher']);
    expect(fake.requests[before + 1]?.body.model).toBe('research-model');
    expect(systemPromptOf(before + 1)).toContain('You research tides.');
    const subUser = ((fake.requests[before + 1]?.body.messages ?? []) as Json[]).find(
      (m) => m.role === 'user',
    );
    expect(subUser?.content).toContain('Find the next high tide');
    expect(subUser?.content).toContain('North coast');
    const researcherTools = (fake.requests[before + 1]?.body.tools as Json[]).map(
      (tool) => (tool.function as Json).name,
    );
    expect(researcherTools).toEqual(['get_current_datetime']);

    const nested = events.filter((event) => event.parentCallId === 'call_delegate');
    const topLevel = events.filter((event) => event.parentCallId === undefined);
    expect(nested.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        'tool_call_started',
        'tool_call_completed',
        'tool_result',
        'text_delta',
        'turn_completed',
      ]),
    );
    expect(nested.find((event) => event.type === 'tool_call_started')).toMatchObject({ id: 'call_clock' });
    const nestedText = nested
      .filter((event) => event.type === 'text_delta')
      .map((event) => event.delta)
      .join('');
    expect(nestedText).toBe('High tide at 06:12.');
    const topText = topLevel
      .filter((event) => event.type === 'text_delta')
      .map((event) => event.delta)
      .join('');
    expect(topText).toBe('The researcher says high tide is at 06:12.');
    // The nested events arrive inside the parent call: after it started, before its result.
    const startedAt = events.findIndex(
      (event) => event.type === 'tool_call_started' && event.id === 'call_delegate',
    );
    const resultAt = events.findIndex(
      (event) => event.type === 'tool_result' && event.id === 'call_delegate',
    );
    const firstNested = events.findIndex((event) => event.parentCallId === 'call_delegate');
    expect(startedAt).toBeLessThan(firstNested);
    expect(firstNested).toBeLessThan(resultAt);
    expect(events[resultAt]).toMatchObject({
      result: {
        answer: 'High tide at 06:12.',
        agentId: researcher,
        iterations: 2,
        usage: { totalTokens: 30 },
      },
    });

    // The transcript holds the lead's conversation only: the specialist's answer is the delegating call's result,
    // never an assistant message of this chat.
    const stored = (await api('GET', `/api/chats/${chatId}/messages`, alice)).body.messages as Json[];
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(
      stored.filter((message) => message.role === 'assistant').map((message) => message.content),
    ).toEqual(['', 'The researcher says high tide is at 06:12.']);

    // The specialist's call is in the audit trail under the delegating call.
    await server.services.flush();
    const audit = await api('GET', '/api/executions?parentCallId=call_delegate', alice);
    expect(
      (audit.body.executions as Json[]).map((row) => [row.toolName, row.parentCallId, row.chatId]),
    ).toEqual([['get_current_datetime', 'call_delegate', chatId]]);
  });

  it("issue 16: a sub-agent's ask reaches the chat's human once, nested under the delegating call, and a deny is read by the sub-agent", async () => {
    const lead = await createAgent(alice, 'careful-lead', { model: 'lead-model' });
    const clerk = await createAgent(alice, 'clerk', { model: 'clerk-model' });
    await createAgentTool(alice, 'ask_clerk', { targetAgentId: clerk, description: 'Ask the clerk.' });
    await give(alice, lead, 'ask_clerk');
    // The clerk's own rule: its clock calls need approval.
    await give(alice, clerk, 'get_current_datetime', { enabled: true, permission: 'ask' });
    const chatId = await newChat(alice, { agentId: lead });
    script(
      { toolCalls: [call('call_to_clerk', 'ask_clerk', { task: 'What time is it?' })] },
      { toolCalls: [call('call_clerk_clock', 'get_current_datetime', { timezone: 'UTC' })] },
      { text: 'I was not allowed to look.' },
      { text: 'The clerk could not tell.' },
    );
    const running = turn(alice, chatId, { message: 'Time?' });
    await expect
      .poll(
        async () =>
          (await server.services.repositories.toolApprovals.findLatest(alice.id, chatId, 'call_clerk_clock'))
            ?.status,
        { timeout: 10_000, interval: 20 },
      )
      .toBe('pending');
    // Another user cannot answer it.
    expect(
      (await api('POST', `/api/chats/${chatId}/approvals/call_clerk_clock`, bob, { decision: 'approve' }))
        .status,
    ).toBe(404);
    const answered = await api('POST', `/api/chats/${chatId}/approvals/call_clerk_clock`, alice, {
      decision: 'deny',
      message: 'not during the meeting',
    });
    expect(answered.status, answered.raw).toBe(200);
    const events = await running;
    const asks = events.filter((event) => event.type === 'approval_requested');
    expect(asks).toHaveLength(1);
    expect(asks[0]).toMatchObject({
      callId: 'call_clerk_clock',
      toolName: 'get_current_datetime',
      parentCallId: 'call_to_clerk',
      reason: 'agent rule "ask"',
    });
    const refused = events.find(
      (event) =>
        event.type === 'tool_result' &&
        event.id === 'call_clerk_clock' &&
        event.parentCallId === 'call_to_clerk',
    );
    expect(JSON.stringify(refused)).toContain('permission_denied');
    expect(JSON.stringify(refused)).toContain('not during the meeting');
  });

  it('offers an agent tool to an agent only when its selection enables it; the inspector with agent= shows the same list', async () => {
    const helper = await createAgent(alice, 'helper', {});
    const boss = await createAgent(alice, 'boss', {});
    await createAgentTool(alice, 'ask_helper', { targetAgentId: helper, description: 'Ask the helper.' });
    const chatId = await newChat(alice);
    const names = async (query: string) =>
      ((await api('GET', `/api/chats/${chatId}/capabilities?${query}`, alice)).body.tools as Json[]).map(
        (tool) => tool.name,
      );
    expect(await names(`agent=${boss}`)).not.toContain('ask_helper');
    expect(await names('')).toContain('ask_helper');
    await give(alice, boss, 'ask_helper');
    expect(await names(`agent=${boss}`)).toEqual(['ask_helper']);
    const listed = (await api('GET', `/api/agents/${boss}/tools`, alice)).body.tools as Json[];
    expect(listed.find((tool) => tool.toolName === 'ask_helper')).toMatchObject({
      type: 'agent',
      enabled: true,
    });
    // Bob cannot see, run or point at Alice's agents and tools.
    expect(((await api('GET', '/api/tools/agent-tool', bob)).body.tools as Json[]).length).toBe(0);
    const stolen = await api('POST', '/api/tools/agent-tool', bob, {
      name: 'steal',
      config: { targetAgentId: helper, description: 'x' },
    });
    expect(stolen.status).toBe(422);
    expect(
      (
        await api('POST', '/api/tools/agent-tool', alice, {
          name: 'bash',
          config: { targetAgentId: helper, description: 'x' },
        })
      ).status,
    ).toBe(409);
  });

  it('refuses a cycle before the target runs', async () => {
    const first = await createAgent(alice, 'first', { model: 'first-model' });
    const second = await createAgent(alice, 'second', { model: 'second-model' });
    await createAgentTool(alice, 'to_second', { targetAgentId: second, description: 'Ask second.' });
    await createAgentTool(alice, 'back_to_first', { targetAgentId: first, description: 'Ask first.' });
    await give(alice, first, 'to_second');
    await give(alice, second, 'back_to_first');
    const chatId = await newChat(alice, { agentId: first });
    const before = fake.requests.length;
    script(
      { toolCalls: [call('call_a', 'to_second', { task: 'help' })] },
      { toolCalls: [call('call_b', 'back_to_first', { task: 'help back' })] },
      { text: 'I could not ask first.' },
      { text: 'Done.' },
    );
    const events = await turn(alice, chatId, { message: 'go' });
    const refused = events.find((event) => event.type === 'tool_result' && event.id === 'call_b');
    expect(refused).toMatchObject({ parentCallId: 'call_a', error: { code: 'permission_denied' } });
    expect(String((refused?.error as Json).message)).toContain('cycle');
    // Four model calls: first, second, second again (after the refusal), first again. `first` never ran as a sub-agent.
    expect(fake.requests.slice(before).map((request) => request.body.model)).toEqual([
      'first-model',
      'second-model',
      'second-model',
      'first-model',
    ]);
  });

  it('stops at the delegation depth limit (default 3) before the fourth delegation runs', async () => {
    const ids: string[] = [];
    for (const name of ['d0', 'd1', 'd2', 'd3', 'd4'])
      ids.push(await createAgent(alice, name, { model: `${name}-model` }));
    for (let index = 1; index < ids.length; index += 1) {
      await createAgentTool(alice, `to_d${index}`, {
        targetAgentId: ids[index],
        description: `Ask d${index}.`,
      });
      await give(alice, ids[index - 1]!, `to_d${index}`);
    }
    const chatId = await newChat(alice, { agentId: ids[0] });
    const before = fake.requests.length;
    script(
      { toolCalls: [call('c1', 'to_d1', { task: 't' })] },
      { toolCalls: [call('c2', 'to_d2', { task: 't' })] },
      { toolCalls: [call('c3', 'to_d3', { task: 't' })] },
      { toolCalls: [call('c4', 'to_d4', { task: 't' })] },
      { text: 'd3 done' },
      { text: 'd2 done' },
      { text: 'd1 done' },
      { text: 'd0 done' },
    );
    const events = await turn(alice, chatId, { message: 'go deep' });
    const refused = events.find((event) => event.type === 'tool_result' && event.id === 'c4');
    expect(refused).toMatchObject({ parentCallId: 'c3', error: { code: 'permission_denied' } });
    expect(String((refused?.error as Json).message)).toContain('maxDelegationDepth');
    expect(fake.requests.slice(before).map((request) => request.body.model)).not.toContain('d4-model');
    // Deeper events keep the id of their own delegating call.
    expect(
      events.find((event) => event.type === 'tool_call_started' && event.id === 'c3')?.parentCallId,
    ).toBe('c2');
  });

  it('ends the sub-turn with a clear error past maxDelegationTokens (the agent overlay of the tool applies)', async () => {
    const manager = await createAgent(alice, 'manager', {});
    const spender = await createAgent(alice, 'spender', {});
    await createAgentTool(alice, 'ask_spender', { targetAgentId: spender, description: 'Ask the spender.' });
    // The agent's overlay lowers the budget to 10 tokens (the fake reports 15 per model call).
    await give(alice, manager, 'ask_spender', { enabled: true, config: { maxDelegationTokens: 10 } });
    await give(alice, spender, 'get_current_datetime');
    const invalid = await api('PATCH', `/api/agents/${manager}/tools/ask_spender`, alice, {
      config: { maxDelegationTokens: -1 },
    });
    expect(invalid.status).toBe(422);
    const chatId = await newChat(alice, { agentId: manager });
    script(
      { toolCalls: [call('call_spend', 'ask_spender', { task: 'spend' })] },
      { toolCalls: [call('call_never', 'get_current_datetime', {})] },
      { text: 'It ran out of budget.' },
    );
    const events = await turn(alice, chatId, { message: 'go' });
    const result = events.find((event) => event.type === 'tool_result' && event.id === 'call_spend');
    expect(result).toMatchObject({ error: { code: 'execution_failed' } });
    expect(String((result?.error as Json).message)).toContain('maxDelegationTokens of 10');
    expect(
      events.find((event) => event.type === 'turn_completed' && event.parentCallId === 'call_spend'),
    ).toMatchObject({ stopReason: 'token_budget' });
    // The sub-agent's call was never run.
    expect(
      events.some(
        (event) => event.type === 'tool_result' && event.id === 'call_never' && event.result !== undefined,
      ),
    ).toBe(false);
  });

  it('cancellation reaches the sub-agent: closing the client aborts its provider stream', async () => {
    const owner = await createAgent(alice, 'owner', {});
    const slow = await createAgent(alice, 'slow', {});
    await createAgentTool(alice, 'ask_slow', { targetAgentId: slow, description: 'Ask the slow one.' });
    await give(alice, owner, 'ask_slow');
    const chatId = await newChat(alice, { agentId: owner });
    script({ toolCalls: [call('call_slow', 'ask_slow', { task: 'wait' })] });
    // The sub-agent's model call never answers (the fake waits a minute before its first event).
    fake.enqueue('openai-chat', {
      payloads: scriptStep('openai-chat', { text: 'thinking' }),
      delayMs: 60_000,
    });
    const abortedBefore = fake.abortedRequests;
    const requestsBefore = fake.requests.length;

    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (server.app.server.address() as AddressInfo).port;
    const received: string[] = [];
    const client = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/chats/${chatId}/turns`,
      headers: { ...alice.headers, 'content-type': 'application/json' },
    });
    client.on('response', (response) =>
      response.on('data', (chunk: Buffer) => received.push(chunk.toString())),
    );
    client.on('error', () => {});
    client.end(JSON.stringify({ message: 'wait for it' }));
    const deadline = Date.now() + 10_000;
    // Wait until the sub-agent's model call is in flight, then go away.
    while (fake.requests.length < requestsBefore + 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.requests.length).toBe(requestsBefore + 2);
    expect(received.join('')).toContain('event: tool_call_completed');
    client.destroy();
    while (fake.abortedRequests === abortedBefore && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fake.abortedRequests).toBeGreaterThan(abortedBefore);
    await server.services.flush();
    const audit = await api('GET', `/api/executions?toolName=ask_slow`, alice);
    const deadlineAudit = Date.now() + 5_000;
    let rows = audit.body.executions as Json[];
    while (rows.length === 0 && Date.now() < deadlineAudit) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await server.services.flush();
      rows = (await api('GET', `/api/executions?toolName=ask_slow`, alice)).body.executions as Json[];
    }
    expect(rows[0]).toMatchObject({ toolName: 'ask_slow', outcome: 'aborted' });
  });
});
