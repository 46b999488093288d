import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegistryEntry } from '../../src/core/tool-registry.ts';
import { defineTool } from '../../src/core/tool-types.ts';
import { createToolportServices, type ToolportServices } from '../../src/services/toolport-services.ts';
import { createTestDatabase, TEST_ENGINES, type TestDatabaseTarget } from '../support/test-databases.ts';
import { TEST_SECRET_KEY } from '../support/test-server.ts';
import { createTestRegistry } from '../support/server-test-tools.ts';

function mcpEntry(name: string, result: unknown): RegistryEntry {
  return {
    source: { kind: 'mcp', origin: 'mcp:test-server' },
    tool: defineTool<object>({
      definition: { name, description: `${name} from MCP`, parameters: { type: 'object', properties: {} } },
      settings: {
        title: name,
        description: name,
        category: 'mcp',
        enabledByDefault: true,
        canDisable: true,
        defaultParameters: {},
        parameterDescriptors: [],
      },
      execute: async () => result,
    }),
  };
}

describe.each(TEST_ENGINES)('CORE-4 getEnabledToolRuntime on %s', (engine) => {
  let target: TestDatabaseTarget;
  let services: ToolportServices;
  const usersWithMcp = new Set<string>();

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    services = createToolportServices({
      database: await target.open(),
      registry: createTestRegistry(),
      secretKey: TEST_SECRET_KEY,
      // A per-user source, the hook MCP and HTTP tools plug into.
      toolSources: [
        async (userId) => (usersWithMcp.has(userId) ? [mcpEntry('mcp_search', { hits: 3 })] : []),
      ],
    });
  });
  afterAll(async () => {
    await services?.flush();
    await target?.dispose();
  });

  const names = (runtime: { tools: readonly { definition: { name: string } }[] }) =>
    runtime.tools.map((tool) => tool.definition.name);

  it('merges saved settings with defaults: disabled tools vanish, enabled-by-user ones appear', async () => {
    const user = await services.repositories.users.create({ name: `runtime-${engine}-1` });
    const before = await services.toolRuntime.getEnabledToolRuntime(user);
    expect(names(before)).toContain('configurable');
    expect(names(before)).not.toContain('off_by_default');
    await services.toolSettings.update(user, 'configurable', { enabled: false });
    await services.toolSettings.update(user, 'off_by_default', { enabled: true });
    await services.toolSettings.update(user, 'wait', { parameters: { timeoutSeconds: 9 } });
    const after = await services.toolRuntime.getEnabledToolRuntime(user);
    expect(names(after)).not.toContain('configurable');
    expect(names(after)).toContain('off_by_default');
    expect(
      after.tools.find((tool) => tool.definition.name === 'wait')?.settings.parameters.timeoutSeconds,
    ).toBe(9);
    expect(names(after)).toEqual([...names(after)].sort());
    const outcome = await after.execute({ toolName: 'configurable', arguments: {} });
    expect(outcome.ok ? undefined : outcome.error.code).toBe('disabled');
  });

  it("applies the chat's working directory and mode, and the agent's tool selection", async () => {
    const user = await services.repositories.users.create({ name: `runtime-${engine}-2` });
    const agent = await services.repositories.agents.create(user.id, { name: 'limited' });
    await services.repositories.agents.putTool(user.id, agent.id, 'configurable', { enabled: true });
    await services.repositories.agents.putTool(user.id, agent.id, 'always_on', { enabled: true });
    await services.repositories.agents.putTool(user.id, agent.id, 'secret_echo', { enabled: false });
    const chat = await services.repositories.chats.create(user.id, {
      workingDirectory: '/srv/work',
      mode: 'agent',
      agentId: agent.id,
    });
    const runtime = await services.toolRuntime.getEnabledToolRuntime(user, chat, agent);
    expect(names(runtime)).toEqual(['always_on', 'configurable']);
    expect(runtime).toMatchObject({
      chatId: chat.id,
      agentId: agent.id,
      mode: 'agent',
      workingDirectory: '/srv/work',
    });
    const ran = await runtime.execute({ toolName: 'configurable', arguments: {} });
    expect(ran.ok && ran.result).toMatchObject({ mode: 'agent', workingDirectory: '/srv/work' });
    const denied = await runtime.execute({ toolName: 'secret_echo', arguments: { name: 'x' } });
    expect(denied.ok ? undefined : denied.error.code).toBe('permission_denied');
  });

  it('adds per-user tools from catalog sources and per-call extra entries, and records executions', async () => {
    const user = await services.repositories.users.create({ name: `runtime-${engine}-with-mcp` });
    usersWithMcp.add(user.id);
    const runtime = await services.toolRuntime.getEnabledToolRuntime(user, undefined, undefined, {
      extraEntries: [mcpEntry('mcp_fetch', { page: 'ok' })],
    });
    expect(names(runtime)).toEqual(expect.arrayContaining(['mcp_search', 'mcp_fetch']));
    const outcome = await runtime.execute({ toolName: 'mcp_search', arguments: '{}' });
    expect(outcome.ok && outcome.result).toEqual({ hits: 3 });
    const other = await services.repositories.users.create({ name: `runtime-${engine}-3` });
    expect(names(await services.toolRuntime.getEnabledToolRuntime(other))).not.toContain('mcp_search');
    await services.flush();
    expect(await services.repositories.toolExecutions.query({ userId: user.id })).toEqual([
      expect.objectContaining({ toolName: 'mcp_search', outcome: 'ok' }),
    ]);
  });

  it('gives tools the user’s secrets and the database freshness ledger', async () => {
    const user = await services.repositories.users.create({ name: `runtime-${engine}-4` });
    await services.secrets.set(user.id, 'TOKEN', 'value-of-the-token');
    const runtime = await services.toolRuntime.getEnabledToolRuntime(user);
    const outcome = await runtime.execute({ toolName: 'secret_echo', arguments: { name: 'TOKEN' } });
    // The tool read the secret (its exact value came back, and core redacted it from the result and the text).
    expect(outcome.ok && outcome.result).toEqual({ value: '***' });
    expect(outcome.output).not.toContain('value-of-the-token');
  });

  it('a secret that no longer decrypts (changed key) fails only the tool that reads it', async () => {
    const user = await services.repositories.users.create({ name: `runtime-${engine}-5` });
    await services.repositories.secrets.put(
      user.id,
      'BROKEN',
      'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA',
    );
    const runtime = await services.toolRuntime.getEnabledToolRuntime(user);
    const other = await runtime.execute({ toolName: 'always_on', arguments: {} });
    expect(other.ok).toBe(true);
    const reading = await runtime.execute({ toolName: 'secret_echo', arguments: { name: 'BROKEN' } });
    expect(reading.ok ? undefined : reading.error.message).toMatch(/cannot be decrypted/);
  });
});
