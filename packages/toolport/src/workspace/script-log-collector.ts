/** `console.*` of a workspace script, capped (WS-1: 64 KB); never printed by the server, returned beside the value. */
export const MAX_SCRIPT_LOG_CHARACTERS = 64 * 1024;

export class ScriptLogCollector {
  readonly #limit: number;
  #text = '';
  #truncated = false;

  readonly #onLine: ((level: string, line: string) => void) | undefined;

  /** `onLine` sees every line as it comes, before the cap (MCP-2: a script's console as live log notifications). */
  constructor(limit = MAX_SCRIPT_LOG_CHARACTERS, onLine?: (level: string, line: string) => void) {
    this.#limit = limit;
    this.#onLine = onLine;
  }

  append(level: string, line: string): void {
    this.#onLine?.(level, line);
    if (this.#truncated) return;
    const entry = `${level === 'log' || level === 'info' ? '' : `${level}: `}${line}\n`;
    const room = this.#limit - this.#text.length;
    if (entry.length > room) {
      this.#text += entry.slice(0, room);
      this.#truncated = true;
      return;
    }
    this.#text += entry;
  }

  /** The captured text, with a closing note when the cap cut it. */
  text(): string {
    return this.#truncated ? `${this.#text}\n[logs truncated at ${this.#limit / 1024} KB]\n` : this.#text;
  }
}
