import { randomBytes } from 'node:crypto';
import type { ToolRegistry } from '../../src/core/tool-registry.ts';
import { buildServer, type ToolportApp, type ToolportServerPlugin } from '../../src/http/build-server.ts';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import {
  createToolportServices,
  type ToolportServices,
  type ToolportServicesOptions,
} from '../../src/services/toolport-services.ts';
import { LOCAL_USER_POLICY } from '../../src/policy/local-user-policy.ts';
import type { OperatorPolicy } from '../../src/policy/operator-policy.ts';
import { createTestRegistry } from './server-test-tools.ts';

/**
 * Feature suites test features, not AUTH-2: their (non-admin) users may do what admins may (shells, stdio MCP, any
 * working directory, unconfined files, loopback provider base URLs: the CLI's `LOCAL_USER_POLICY`). The security
 * suites pass `services.policy`
 * (the real defaults from `loadOperatorPolicy`). `/proc`, `/sys` and `/dev` stay denied, as everywhere.
 */
export const OPEN_TEST_POLICY: OperatorPolicy = LOCAL_USER_POLICY;

export interface TestServer {
  app: ToolportApp;
  services: ToolportServices;
  close(): Promise<void>;
}

export const TEST_SECRET_KEY = randomBytes(32);

export async function startTestServer(
  database: ToolportDatabase,
  options: {
    registry?: ToolRegistry;
    plugins?: ToolportServerPlugin[];
    secretKey?: Buffer;
    mcp?: ToolportServicesOptions['mcp'];
    services?: Partial<Omit<ToolportServicesOptions, 'database' | 'registry' | 'secretKey'>>;
  } = {},
): Promise<TestServer> {
  const services = createToolportServices({
    database,
    registry: options.registry ?? createTestRegistry(),
    secretKey: options.secretKey ?? TEST_SECRET_KEY,
    // A loaded machine may take seconds to start a fixture server; tests of the short listing wait pass their own.
    mcp: { listingWaitMs: 20_000, ...options.mcp },
    policy: OPEN_TEST_POLICY,
    ...options.services,
  });
  const app = await buildServer({ services, logger: false, plugins: options.plugins });
  return {
    app,
    services,
    close: async () => {
      await app.close();
      await services.mcp.close();
      await services.providers.close();
      await services.httpTools.close();
      await services.workspaceTools.close();
      await services.flush();
    },
  };
}

let userCounter = 0;

/** A fresh user and their bearer header. */
export async function createTestUser(
  services: ToolportServices,
  prefix = 'user',
  options: { isAdmin?: boolean } = {},
): Promise<{ id: string; isAdmin: boolean; token: string; headers: { authorization: string } }> {
  const { user, token } = await services.tokens.createUser(`${prefix}-${process.pid}-${++userCounter}`, {
    isAdmin: options.isAdmin === true,
  });
  return { id: user.id, isAdmin: user.isAdmin, token, headers: { authorization: `Bearer ${token}` } };
}
