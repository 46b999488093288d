// The anchor of `npm run bench -- api`: a bare Fastify route on the same machine, in its own process, answering a
// small JSON body; what the HTTP stack alone costs. Prints {"url"} as one JSON line when ready.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` })}\n`,
);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
