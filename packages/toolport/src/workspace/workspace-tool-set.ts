import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  formatWorkspaceToolErrors,
  loadWorkspaceToolsFile,
  WORKSPACE_TOOLS_FILE,
  type LoadWorkspaceToolsOptions,
  type WorkspaceToolLoadError,
  type WorkspaceToolSpec,
} from './workspace-tools-file.ts';

export interface WorkspaceReloadReport {
  /** False when the new file had an invalid entry: nothing changed, the last good set stays. */
  accepted: boolean;
  tools: string[];
  errors: WorkspaceToolLoadError[];
  message: string;
}

const WATCH_DEBOUNCE_MS = 150;

/**
 * One workspace's tools.json: the last good set of tools, reloaded on request or when the file changes. The first
 * load keeps the valid entries and reports the invalid ones (like code tools' load errors); a later reload with any
 * invalid entry is rejected whole and the last good set stays.
 */
export class WorkspaceToolSet {
  readonly directory: string;
  readonly #options: LoadWorkspaceToolsOptions;
  #specs: WorkspaceToolSpec[] = [];
  #errors: WorkspaceToolLoadError[] = [];
  #sha256: string | undefined;
  #present = false;
  #loaded: Promise<void> | undefined;
  #stamp = '';
  readonly #listeners = new Set<(report: WorkspaceReloadReport) => void>();

  constructor(directory: string, options: LoadWorkspaceToolsOptions = {}) {
    this.directory = directory;
    this.#options = options;
  }

  /** The tools.json path (it may not exist). */
  get path(): string {
    return `${this.directory}/${WORKSPACE_TOOLS_FILE}`;
  }
  get specs(): readonly WorkspaceToolSpec[] {
    return this.#specs;
  }
  /** Errors of the first load, or of the last rejected reload. */
  get errors(): readonly WorkspaceToolLoadError[] {
    return this.#errors;
  }
  /** sha256 of the tools.json the current set came from. */
  get sha256(): string | undefined {
    return this.#sha256;
  }
  /** False when the workspace has no tools.json. */
  get present(): boolean {
    return this.#present;
  }

  /** The first load (once), then the set as it is. */
  ensureLoaded(): Promise<void> {
    this.#loaded ??= this.#firstLoad();
    return this.#loaded;
  }

  async #firstLoad(): Promise<void> {
    this.#stamp = await this.#fileStamp();
    const file = await loadWorkspaceToolsFile(this.directory, this.#options);
    this.#present = file !== undefined;
    this.#specs = file?.tools ?? [];
    this.#errors = file?.errors ?? [];
    this.#sha256 = file?.sha256;
  }

  /** Reloads when tools.json's size or mtime changed since the last load (cheap: one stat). */
  async refreshIfChanged(): Promise<boolean> {
    await this.ensureLoaded();
    if ((await this.#fileStamp()) === this.#stamp) return false;
    return (await this.reload()).accepted;
  }

  /** ReloadWorkspaceTools: re-reads tools.json; any invalid entry rejects the whole file. */
  async reload(): Promise<WorkspaceReloadReport> {
    await this.ensureLoaded();
    const stamp = await this.#fileStamp();
    const file = await loadWorkspaceToolsFile(this.directory, this.#options);
    if (file !== undefined && file.errors.length > 0) {
      this.#errors = file.errors;
      this.#stamp = stamp;
      return {
        accepted: false,
        tools: this.#specs.map((spec) => spec.name),
        errors: file.errors,
        message:
          `tools.json has ${file.errors.length} invalid entr${file.errors.length === 1 ? 'y' : 'ies'}; the reload ` +
          `was rejected and the last good set stays:\n${formatWorkspaceToolErrors(file.errors)}`,
      };
    }
    this.#stamp = stamp;
    this.#present = file !== undefined;
    this.#specs = file?.tools ?? [];
    this.#errors = [];
    this.#sha256 = file?.sha256;
    const report: WorkspaceReloadReport = {
      accepted: true,
      tools: this.#specs.map((spec) => spec.name),
      errors: [],
      message: `Loaded ${this.#specs.length} workspace tool${this.#specs.length === 1 ? '' : 's'} from tools.json.`,
    };
    for (const listener of this.#listeners) listener(report);
    return report;
  }

  /** Called after every accepted reload (ReloadWorkspaceTools, the watcher, a changed file noticed by a lookup). */
  subscribe(listener: (report: WorkspaceReloadReport) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async #fileStamp(): Promise<string> {
    try {
      const info = await stat(`${this.directory}/${WORKSPACE_TOOLS_FILE}`);
      return `${info.size}:${info.mtimeMs}:${info.ino}`;
    } catch {
      return 'absent';
    }
  }

  /**
   * Watches tools.json and the scripts' directories; a change (debounced) reloads the set, which tells the
   * subscribers when the reload was accepted. Returns the stop function.
   */
  watch(): () => void {
    const watchers: FSWatcher[] = [];
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const relevant = (filename: string | Buffer | null): boolean => {
      if (filename === null) return true;
      const name = String(filename);
      return (
        name === WORKSPACE_TOOLS_FILE || this.#specs.some((spec) => spec.scriptRealPath.endsWith(`/${name}`))
      );
    };
    const schedule = (_event: string, filename: string | Buffer | null): void => {
      if (stopped || !relevant(filename)) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        void this.reload().then(() => {
          if (!stopped) rewatch();
        });
      }, WATCH_DEBOUNCE_MS);
    };
    const rewatch = (): void => {
      for (const watcher of watchers.splice(0)) watcher.close();
      const directories = new Set([
        this.directory,
        ...this.#specs.map((spec) => dirname(spec.scriptRealPath)),
      ]);
      for (const directory of directories) {
        try {
          const watcher = watch(directory, { persistent: false }, schedule);
          watcher.on('error', () => watcher.close());
          watchers.push(watcher);
        } catch {
          // A directory that vanished: the next reload reports the missing script.
        }
      }
    };
    void this.ensureLoaded().then(() => {
      if (!stopped) rewatch();
    });
    return () => {
      stopped = true;
      clearTimeout(timer);
      for (const watcher of watchers.splice(0)) watcher.close();
    };
  }
}
