import type { CompletedToolCall } from './provider-adapter.ts';
import type { StepEvent } from './stream-events.ts';

/** One piece of a streamed tool call, as any wire format delivers it. Empty strings count as absent. */
export interface ToolCallFragment {
  id?: string | null;
  index?: number | null;
  name?: string | null;
  argumentsDelta?: string | null;
}

interface PendingCall {
  id: string;
  name: string;
  /** Fragments are kept and joined once at completion: linear time however many deltas arrive. */
  fragments: string[];
  unannounced: string[];
  /** Set once at completion. */
  text: string;
  started: boolean;
  completed: boolean;
}

/**
 * Assembles streamed tool calls. A fragment belongs to the call with its id, else to the latest call at its index,
 * else to the latest call: servers that reuse `index: 0` for parallel calls (Ollama) stay separate because their
 * ids differ, and servers that send the id only on the first fragment (most) still land on the right call.
 * Whole-call chunks (id, name and all arguments at once) and fragments both work.
 */
export class ToolCallAccumulator {
  readonly #calls: PendingCall[] = [];
  readonly #byId = new Map<string, PendingCall>();
  readonly #byIndex = new Map<number, PendingCall>();
  readonly #generateId: () => string;

  constructor(generateId: () => string) {
    this.#generateId = generateId;
  }

  #create(id: string | undefined): PendingCall {
    const call: PendingCall = {
      id: id ?? this.#generateId(),
      name: '',
      fragments: [],
      unannounced: [],
      text: '',
      started: false,
      completed: false,
    };
    this.#calls.push(call);
    this.#byId.set(call.id, call);
    return call;
  }

  #resolve(fragment: ToolCallFragment): PendingCall {
    const id = fragment.id === null || fragment.id === '' ? undefined : fragment.id;
    const index = typeof fragment.index === 'number' ? fragment.index : undefined;
    let call: PendingCall | undefined;
    if (id !== undefined) call = this.#byId.get(id) ?? this.#create(id);
    else if (index !== undefined) call = this.#byIndex.get(index);
    else call = this.#calls.findLast((candidate) => !candidate.completed);
    call ??= this.#create(undefined);
    if (index !== undefined) this.#byIndex.set(index, call);
    return call;
  }

  apply(fragment: ToolCallFragment): StepEvent[] {
    const call = this.#resolve(fragment);
    const events: StepEvent[] = [];
    if (call.completed) return events;
    if (call.name === '' && fragment.name) call.name = fragment.name;
    if (!call.started && call.name !== '') {
      call.started = true;
      events.push({ type: 'tool_call_started', id: call.id, name: call.name });
      for (const delta of call.unannounced)
        events.push({ type: 'tool_call_arguments_delta', id: call.id, delta });
      call.unannounced = [];
    }
    const delta = fragment.argumentsDelta;
    if (delta) {
      call.fragments.push(delta);
      if (call.started) events.push({ type: 'tool_call_arguments_delta', id: call.id, delta });
      else call.unannounced.push(delta);
    }
    return events;
  }

  /** The call's whole argument text when a format repeats it at the end; used only if no delta carried it. */
  applyFinalArguments(id: string, text: string): StepEvent[] {
    const call = this.#byId.get(id);
    if (call === undefined || call.completed || call.fragments.length > 0 || text === '') return [];
    return this.apply({ id, argumentsDelta: text });
  }

  hasCall(id: string): boolean {
    return this.#byId.has(id);
  }

  complete(id: string): StepEvent[] {
    const call = this.#byId.get(id);
    if (call === undefined || call.completed) return [];
    const events: StepEvent[] = [];
    if (!call.started) {
      call.started = true;
      events.push({ type: 'tool_call_started', id: call.id, name: call.name });
      for (const delta of call.unannounced)
        events.push({ type: 'tool_call_arguments_delta', id: call.id, delta });
    }
    call.completed = true;
    call.text = call.fragments.join('');
    events.push({ type: 'tool_call_completed', id: call.id, name: call.name, arguments: call.text });
    return events;
  }

  /** The latest call at `index` (Anthropic content blocks, Gemini Interactions steps). */
  idAtIndex(index: number): string | undefined {
    return this.#byIndex.get(index)?.id;
  }

  completeAll(): StepEvent[] {
    return this.#calls.flatMap((call) => this.complete(call.id));
  }

  /** Completed calls in the order they started. */
  completedCalls(): CompletedToolCall[] {
    return this.#calls
      .filter((call) => call.completed)
      .map((call) => ({ id: call.id, name: call.name, arguments: call.text }));
  }
}
