import { randomBytes } from 'node:crypto';
import type { ToolRegistry } from '../../src/core/tool-registry.ts';
import { buildServer, type ToolportApp, type ToolportServerPlugin } from '../../src/http/build-server.ts';
import type { ToolportDatabase } from '../../src/persistence/database.ts';
import {
  createToolportServices,
  type ToolportServices,
  type ToolportServicesOptions,
} from '../../src/services/toolport-services.ts';
import { createTestRegistry } from './server-test-tools.ts';

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
    ...(options.mcp === undefined ? {} : { mcp: options.mcp }),
    ...options.services,
  });
  const app = await buildServer({ services, logger: false, plugins: options.plugins });
  return {
    app,
    services,
    close: async () => {
      await app.close();
      await services.mcp.close();
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
): Promise<{ id: string; token: string; headers: { authorization: string } }> {
  const { user, token } = await services.tokens.createUser(`${prefix}-${process.pid}-${++userCounter}`);
  return { id: user.id, token, headers: { authorization: `Bearer ${token}` } };
}
