import type { OutboundAllowlist } from '../net/ip-address-policy.ts';
import { createSafeFetch } from '../net/safe-fetch.ts';
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
  const safeFetch = createSafeFetch(
    options.outboundAllowlist === undefined ? {} : { allowlist: options.outboundAllowlist },
  );
  const chromium = createChromiumLauncher(
    findChromiumExecutable(options.env ?? process.env),
    safeFetch.client,
  );
  return new WorkspaceToolService({
    http: safeFetch.client,
    browser: chromium.launcher,
    reservedNames: options.reservedNames,
    missingSecretsHint: options.missingSecretsHint,
    ...(options.deniedPaths === undefined ? {} : { deniedPaths: options.deniedPaths }),
    close: async () => {
      await chromium.close();
      await safeFetch.close();
    },
  });
}
