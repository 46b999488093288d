import type { Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';
import type { DatabaseEngine } from '../database-engine.ts';
import * as initialSchema from './0001-initial-schema.ts';
import * as providerConfigsAndTranscripts from './0002-provider-configs-and-transcripts.ts';
import * as images from './0006-images.ts';
import * as agentDelegation from './0007-agent-delegation.ts';
import * as workspaceTrust from './0008-workspace-trust.ts';
import * as approvals from './0010-approvals.ts';
import * as userStateVersion from './0011-user-state-version.ts';

interface EngineMigration {
  up(db: Kysely<unknown>, engine: DatabaseEngine): Promise<void>;
}

/** Ordered by name; Kysely records each applied name in `toolport_migrations`. */
const MIGRATIONS: Record<string, EngineMigration> = {
  '0001-initial-schema': initialSchema,
  '0002-provider-configs-and-transcripts': providerConfigsAndTranscripts,
  '0006-images': images,
  '0007-agent-delegation': agentDelegation,
  '0008-workspace-trust': workspaceTrust,
  '0010-approvals': approvals,
  '0011-user-state-version': userStateVersion,
};

/** Static list (no folder scan), so the migrations work the same from `src/` and from the built `dist/`. */
export function createMigrationProvider(engine: DatabaseEngine): MigrationProvider {
  return {
    getMigrations: async () => {
      const migrations: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(MIGRATIONS)) {
        migrations[name] = { up: (db) => migration.up(db, engine) };
      }
      return migrations;
    },
  };
}
