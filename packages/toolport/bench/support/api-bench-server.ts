// The server side of `npm run bench -- api`, run as its own process so the load generator does not share its CPU.
// Usage: node bench/support/api-bench-server.ts <database URL>; prints {"url","token"} as one JSON line when ready.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { TIMEOUT_SECONDS_DESCRIPTOR } from '../../src/core/settings-policy.ts';
import { ToolRegistry } from '../../src/core/tool-registry.ts';
import { defineTool } from '../../src/core/tool-types.ts';
import { buildServer } from '../../src/http/build-server.ts';
import { migrateDatabase, openDatabase } from '../../src/persistence/database.ts';
import { createToolportServices } from '../../src/services/toolport-services.ts';
import { registerBuiltinTools } from '../../src/tools/index.ts';

const TOOL_COUNT = 20;

/** A registry the size of the finished product's built-ins, each tool with a few settings. */
function benchRegistry(): ToolRegistry {
  const registry = registerBuiltinTools(new ToolRegistry());
  for (let index = 0; index < TOOL_COUNT; index += 1) {
    registry.register(
      defineTool<object>({
        definition: {
          name: `bench_${index}`,
          description: 'bench',
          parameters: { type: 'object', properties: {} },
        },
        settings: {
          title: `Bench ${index}`,
          description: 'A tool with a few settings',
          category: 'system',
          enabledByDefault: true,
          canDisable: true,
          defaultParameters: {},
          parameterDescriptors: [
            TIMEOUT_SECONDS_DESCRIPTOR,
            {
              name: 'maxResults',
              title: 'Max',
              type: 'integer',
              description: 'n',
              default: 100,
              minimum: 1,
              maximum: 5000,
            },
            { name: 'includeDotfiles', title: 'Dotfiles', type: 'boolean', description: 'b', default: false },
            { name: 'allowedPaths', title: 'Paths', type: 'path[]', description: 'p', default: [] },
          ],
        },
        execute: async () => null,
      }),
      { kind: 'custom', origin: 'bench' },
    );
  }
  return registry;
}

const database = openDatabase(process.argv[2]!, { maxConnections: 10 });
await migrateDatabase(database);
const services = createToolportServices({ database, registry: benchRegistry(), secretKey: randomBytes(32) });
// BENCH_API_LOG_LEVEL=info measures what per-request logging costs (lines go to a sink that drops them).
const logLevel = process.env.BENCH_API_LOG_LEVEL;
const app = await buildServer({
  services,
  logger:
    logLevel === undefined
      ? false
      : { level: logLevel, stream: new Writable({ write: (_chunk, _encoding, done) => done() }) },
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
const { token } = await services.tokens.createUser(`bench-${randomBytes(4).toString('hex')}`);
process.stdout.write(`${JSON.stringify({ url, token })}\n`);
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => services.flush())
    .then(() => database.close())
    .then(() => process.exit(0));
});
