import type { RegistryEntry } from '../core/tool-registry.ts';
import type { OutboundHttpClient, ToolContext } from '../core/tool-types.ts';
import type { BrowserLauncher } from './workspace-browser.ts';
import type { WorkspaceScriptOrigin } from './workspace-script-tool.ts';
import { WorkspaceToolSet } from './workspace-tool-set.ts';
import {
  createWorkspaceMetaTools,
  createWorkspaceToolEntries,
  WORKSPACE_META_TOOL_NAMES,
} from './workspace-tools.ts';

export interface WorkspaceToolServiceOptions {
  /** NET-1 client for `g.http`, built with the operator's TOOLPORT_OUTBOUND_ALLOW. */
  http: OutboundHttpClient;
  browser?: BrowserLauncher;
  /** Names taken by built-ins and code tools (a workspace tool may not shadow them). */
  reservedNames: () => Iterable<string>;
  /** Never readable as a script (the server's data directory). */
  deniedPaths?: readonly string[];
  /** Said when a tool needs a secret and this process has no store. */
  missingSecretsHint: string;
  /** Ends what the service started (the browser, the HTTP client's connections). */
  close?: () => Promise<void>;
}

export interface WorkspaceEntriesOptions {
  origin: WorkspaceScriptOrigin;
  /** The MCP surfaces add GetWorkspaceTools, ExecuteWorkspaceTool and ReloadWorkspaceTools. */
  includeMetaTools?: boolean;
  /** The operator policy and the user's trust, checked at each call before the script is read. */
  checkAllowed?: (context: ToolContext, set: WorkspaceToolSet) => Promise<void>;
}

/** One WorkspaceToolSet per directory for the whole process, shared by every user and front end. */
export class WorkspaceToolService {
  readonly #options: WorkspaceToolServiceOptions;
  readonly #sets = new Map<string, WorkspaceToolSet>();

  constructor(options: WorkspaceToolServiceOptions) {
    this.#options = options;
  }

  /** Stops the browser and the client; call on shutdown. */
  async close(): Promise<void> {
    await this.#options.close?.();
  }

  getSet(directory: string): WorkspaceToolSet {
    let set = this.#sets.get(directory);
    if (set === undefined) {
      set = new WorkspaceToolSet(directory, {
        isReservedName: (name) => this.isReservedName(name),
        ...(this.#options.deniedPaths === undefined ? {} : { deniedPaths: this.#options.deniedPaths }),
      });
      this.#sets.set(directory, set);
    }
    return set;
  }

  isReservedName(name: string): boolean {
    if ((WORKSPACE_META_TOOL_NAMES as readonly string[]).includes(name)) return true;
    for (const reserved of this.#options.reservedNames()) if (reserved === name) return true;
    return false;
  }

  /** The workspace's script tools (and meta-tools) as registry entries; none when it has no tools.json. */
  async listEntries(directory: string, options: WorkspaceEntriesOptions): Promise<RegistryEntry[]> {
    const set = this.getSet(directory);
    await set.refreshIfChanged();
    if (!set.present && options.includeMetaTools !== true) return [];
    const { checkAllowed } = options;
    const toolOptions = {
      origin: options.origin,
      http: this.#options.http,
      missingSecretsHint: this.#options.missingSecretsHint,
      ...(this.#options.browser === undefined ? {} : { browser: this.#options.browser }),
      ...(this.#options.deniedPaths === undefined ? {} : { deniedPaths: this.#options.deniedPaths }),
      ...(checkAllowed === undefined
        ? {}
        : { checkAllowed: (context: ToolContext) => checkAllowed(context, set) }),
    };
    const entries = createWorkspaceToolEntries(set, toolOptions);
    if (options.includeMetaTools === true) {
      for (const tool of createWorkspaceMetaTools(set, toolOptions)) {
        entries.push({ tool, source: { kind: 'workspace', origin: `workspace:${set.path}` } });
      }
    }
    return entries;
  }
}
