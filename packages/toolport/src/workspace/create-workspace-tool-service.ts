import type { OutboundHttpClient } from '../core/tool-types.ts';
import type { OutboundAllowlist } from '../net/ip-address-policy.ts';
import type { SafeFetch } from '../net/safe-fetch.ts';
import { createChromiumLauncher, findChromiumExecutable } from './chromium-browser.ts';
import { WorkspaceToolService } from './workspace-tool-service.ts';

export interface WorkspaceProcessOptions {
  /** TOOLPORT_OUTBOUND_ALLOW, parsed: g.http and every g.nav page request go through NET-1 with it. */
  outboundAllowlist?: OutboundAllowlist;
  /** Where TOOLPORT_CHROMIUM_PATH and PATH are read (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  reservedNames: () => Iterable<string>;
  deniedPaths?: readonly string[];
  missingSecretsHint: string;
}

/** The process's workspace tools: one NET-1 client and one (lazily started) Chromium for every workspace. */
export function createWorkspaceToolService(options: WorkspaceProcessOptions): WorkspaceToolService {
  // The NET-1 client (and undici with it) loads on the first g.http or g.nav request, not at start-up.
  let safeFetch: Promise<SafeFetch> | undefined;
  const loadSafeFetch = (): Promise<SafeFetch> => {
    safeFetch ??= import('../net/safe-fetch.ts').then(({ createSafeFetch }) =>
      createSafeFetch(
        options.outboundAllowlist === undefined ? {} : { allowlist: options.outboundAllowlist },
      ),
    );
    return safeFetch;
  };
  const http: OutboundHttpClient = {
    request: async (request, signal) => (await loadSafeFetch()).client.request(request, signal),
  };
  const chromium = createChromiumLauncher(findChromiumExecutable(options.env ?? process.env), http);
  return new WorkspaceToolService({
    http,
    browser: chromium.launcher,
    reservedNames: options.reservedNames,
    missingSecretsHint: options.missingSecretsHint,
    ...(options.deniedPaths === undefined ? {} : { deniedPaths: options.deniedPaths }),
    close: async () => {
      await chromium.close();
      await (await safeFetch)?.close();
    },
  });
}
