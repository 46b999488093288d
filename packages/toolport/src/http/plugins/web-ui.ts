import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ToolportServerPlugin } from '../build-server.ts';

/**
 * The built web UI (packages/web/dist), found next to this package in a clone: this file sits at
 * `<toolport>/{src,dist}/http/plugins/`, so `packages/web/dist` is four levels up either way.
 */
export const DEFAULT_WEB_UI_DIRECTORY = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * The UI talks to this origin only and never frames or is framed; React sets styles through the DOM, so no inline
 * style or script is needed. Images may come from the API as blobs (generated images).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

interface Asset {
  body: Buffer;
  gzipped: Buffer | undefined;
  type: string;
  /** Vite's hashed file names never change content: cache them for good. */
  immutable: boolean;
}

/** Every file of the build, read once into memory (a few hundred KB): requests never touch the filesystem. */
function loadAssets(directory: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const body = readFileSync(path);
      const type = CONTENT_TYPES[extname(name)] ?? 'application/octet-stream';
      const compressible = type.startsWith('text/') || type.includes('json') || type.includes('svg');
      const urlPath = `/${relative(directory, path).split(sep).join('/')}`;
      assets.set(urlPath, {
        body,
        gzipped: compressible && body.length > 1024 ? gzipSync(body) : undefined,
        type,
        immutable: urlPath.startsWith('/assets/'),
      });
    }
  };
  walk(directory);
  return assets;
}

/** Paths the SPA fallback must leave alone: the API and the MCP endpoint keep their own 404s. */
function isServerPath(path: string): boolean {
  return /^\/(api|mcp)(\/|$)/.test(path);
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  reply
    .type(asset.type)
    .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-encoding');
  if (asset.type.startsWith('text/html')) {
    reply
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY');
  }
  const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (asset.gzipped !== undefined && acceptsGzip)
    return reply.header('content-encoding', 'gzip').send(asset.gzipped);
  return reply.send(asset.body);
}

export interface WebUiOptions {
  /** The built UI; default `packages/web/dist` beside this package. */
  directory?: string;
}

/** Whether a built UI exists where the plugin would look (serve falls back to the text landing page otherwise). */
export function hasWebUiBuild(directory: string = DEFAULT_WEB_UI_DIRECTORY): boolean {
  return existsSync(join(directory, 'index.html'));
}

/**
 * UI-1: serves the web UI at `/` with a fallback to `index.html` for client-side routes (a reload on `/tools` works).
 * The UI is public static files; everything it shows comes from the authenticated API. Without a build, the plugin
 * mounts nothing and `buildServer` keeps its text landing page.
 */
export function createWebUiPlugin(options: WebUiOptions = {}): ToolportServerPlugin {
  const directory = options.directory ?? DEFAULT_WEB_UI_DIRECTORY;
  return (app) => {
    if (!hasWebUiBuild(directory)) {
      app.log.warn({ directory }, 'web UI not built: GET / serves a text page (run npm run build)');
      return;
    }
    const assets = loadAssets(directory);
    const index = assets.get('/index.html')!;
    const route = { config: { public: true }, schema: { hide: true } } as const;

    app.get('/', route, async (request, reply) => send(request, reply, index));
    app.get('/*', route, async (request, reply) => {
      const path = request.url.split('?')[0]!;
      if (isServerPath(path)) return reply.callNotFound();
      const asset = assets.get(decodeURIComponent(path));
      if (asset !== undefined) return send(request, reply, asset);
      // A missing hashed asset is a real 404 (a stale tab after an upgrade), not the app shell.
      if (path.startsWith('/assets/') || extname(path) !== '') return reply.callNotFound();
      return send(request, reply, index);
    });
  };
}
