import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ToolportError } from '../../core/errors.ts';
import type { AgentsTable, DatabaseSchema } from '../database-schema.ts';
import { currentTimestamp, fromFlag, parseJsonColumn, parseJsonObject, toFlag } from './row-values.ts';

/** SQLite (`SQLITE_CONSTRAINT_UNIQUE`) and PostgreSQL (`23505`) unique-constraint failures. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

export interface AgentRecord {
  id: string;
  userId: string;
  name: string;
  description: string;
  config: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** One row of agent_tools: the agent's selection of a tool (allowed or denied) and its per-agent config. */
export interface AgentToolRecord {
  toolName: string;
  enabled: boolean;
  config: Record<string, unknown>;
  /** Issue 16: the agent's permission rule for the tool (unchecked JSON), absent for none. */
  permission?: unknown;
}

function toRecord(row: AgentsTable): AgentRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    description: row.description,
    config: parseJsonObject(row.config),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class AgentRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async create(
    userId: string,
    agent: { name: string; description?: string; config?: Record<string, unknown> },
  ): Promise<AgentRecord> {
    const now = currentTimestamp();
    const row = await this.#db
      .insertInto('agents')
      .values({
        id: randomUUID(),
        user_id: userId,
        name: agent.name,
        description: agent.description ?? '',
        config: JSON.stringify(agent.config ?? {}),
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.columns(['user_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row === undefined) {
      throw new ToolportError('conflict', `You already have an agent named ${JSON.stringify(agent.name)}.`, {
        details: { name: agent.name },
      });
    }
    return toRecord(row);
  }

  async list(userId: string): Promise<AgentRecord[]> {
    const rows = await this.#db
      .selectFrom('agents')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('name')
      .execute();
    return rows.map(toRecord);
  }

  async get(userId: string, id: string): Promise<AgentRecord | undefined> {
    const row = await this.#db
      .selectFrom('agents')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  /** Changes name, description or the whole config (the caller merged it); undefined for another user's agent. */
  async update(
    userId: string,
    id: string,
    changes: { name?: string; description?: string; config?: Record<string, unknown> },
  ): Promise<AgentRecord | undefined> {
    const set: Partial<AgentsTable> = { updated_at: currentTimestamp() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.config !== undefined) set.config = JSON.stringify(changes.config);
    try {
      const row = await this.#db
        .updateTable('agents')
        .set(set)
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row === undefined ? undefined : toRecord(row);
    } catch (error) {
      if (changes.name !== undefined && isUniqueViolation(error)) {
        throw new ToolportError(
          'conflict',
          `You already have an agent named ${JSON.stringify(changes.name)}.`,
          {
            details: { name: changes.name },
          },
        );
      }
      throw error;
    }
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('agents')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The agent's tool rows; empty for another user's agent. */
  async listTools(userId: string, agentId: string): Promise<AgentToolRecord[]> {
    const rows = await this.#db
      .selectFrom('agent_tools')
      .innerJoin('agents', 'agents.id', 'agent_tools.agent_id')
      .select([
        'agent_tools.tool_name',
        'agent_tools.enabled',
        'agent_tools.config',
        'agent_tools.permission',
      ])
      .where('agents.user_id', '=', userId)
      .where('agent_tools.agent_id', '=', agentId)
      .orderBy('agent_tools.tool_name')
      .execute();
    return rows.map((row) => {
      const permission = parseJsonColumn(row.permission);
      return {
        toolName: row.tool_name,
        enabled: fromFlag(row.enabled),
        config: parseJsonObject(row.config),
        ...(permission === undefined ? {} : { permission }),
      };
    });
  }

  /** Sets the agent's selection of one tool; `config` is merged into the stored config (API-1's PATCH). */
  async putTool(
    userId: string,
    agentId: string,
    toolName: string,
    changes: { enabled?: boolean; config?: Record<string, unknown>; permission?: unknown },
  ): Promise<AgentToolRecord | undefined> {
    return this.#db.transaction().execute(async (transaction) => {
      const agent = await transaction
        .selectFrom('agents')
        .select('id')
        .where('user_id', '=', userId)
        .where('id', '=', agentId)
        .executeTakeFirst();
      if (agent === undefined) return undefined;
      const current = await transaction
        .selectFrom('agent_tools')
        .selectAll()
        .where('agent_id', '=', agentId)
        .where('tool_name', '=', toolName)
        .executeTakeFirst();
      // `permission: null` forgets the agent's rule; undefined keeps it.
      const permission =
        changes.permission === undefined ? parseJsonColumn(current?.permission) : changes.permission;
      const next: AgentToolRecord = {
        toolName,
        enabled: changes.enabled ?? (current === undefined ? true : fromFlag(current.enabled)),
        config: { ...(current === undefined ? {} : parseJsonObject(current.config)), ...changes.config },
        ...(permission === undefined || permission === null ? {} : { permission }),
      };
      const values = {
        agent_id: agentId,
        tool_name: toolName,
        enabled: toFlag(next.enabled),
        config: JSON.stringify(next.config),
        permission: next.permission === undefined ? null : JSON.stringify(next.permission),
      };
      await transaction
        .insertInto('agent_tools')
        .values(values)
        .onConflict((conflict) =>
          conflict
            .columns(['agent_id', 'tool_name'])
            .doUpdateSet({ enabled: values.enabled, config: values.config, permission: values.permission }),
        )
        .execute();
      return next;
    });
  }
}
