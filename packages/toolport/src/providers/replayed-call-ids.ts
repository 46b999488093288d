import { createHash } from 'node:crypto';

/** What a provider accepts as a call id in a request. */
export interface CallIdRule {
  pattern: RegExp;
  maxLength: number;
  /** Whether two calls in one conversation may share an id (Anthropic refuses duplicate `tool_use` ids). */
  unique: boolean;
}

export const ANTHROPIC_CALL_IDS: CallIdRule = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64, unique: true };
/** OpenAI refuses tool call ids longer than 40 characters; compatible servers take any text. */
export const OPENAI_CALL_IDS: CallIdRule = { pattern: /^\S+$/, maxLength: 40, unique: false };

/**
 * The ids a session sends for calls replayed from a transcript, which may come from another provider (a Kimi
 * `functions.get_current_datetime:0` cannot go to Anthropic). An id that fits the target is kept; one that does not
 * becomes a deterministic one (its sanitized text plus a hash of the id and how often it occurred), so the same
 * transcript always replays the same way and each call and its result get the same id. Live calls come from the
 * target itself and are never renamed.
 */
export class ReplayedCallIds {
  readonly #rule: CallIdRule;
  readonly #wire = new Map<string, string>();
  readonly #occurrences = new Map<string, number>();
  readonly #sent = new Set<string>();

  constructor(rule: CallIdRule) {
    this.#rule = rule;
  }

  /** The id to send for a replayed call (in the assistant message). */
  forCall(id: string): string {
    const occurrence = (this.#occurrences.get(id) ?? 0) + 1;
    this.#occurrences.set(id, occurrence);
    const fits = id.length <= this.#rule.maxLength && this.#rule.pattern.test(id);
    const wire = fits && !(this.#rule.unique && this.#sent.has(id)) ? id : this.#derive(id, occurrence);
    this.#sent.add(wire);
    this.#wire.set(id, wire);
    return wire;
  }

  /** The id to send with a result: the replayed call's, else the id as it came (a live call). */
  forResult(id: string): string {
    return this.#wire.get(id) ?? id;
  }

  #derive(id: string, occurrence: number): string {
    const hash = createHash('sha256').update(`${id}\u0000${occurrence}`).digest('hex').slice(0, 12);
    const prefix = id.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, this.#rule.maxLength - hash.length - 1);
    return prefix === '' ? `call_${hash}` : `${prefix}_${hash}`;
  }
}
