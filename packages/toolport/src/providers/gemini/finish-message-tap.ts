/**
 * `@google/genai` drops a candidate's `finishMessage` when it converts Gemini API responses (it keeps
 * `finishReason`), yet that message is the only explanation of a `MALFORMED_FUNCTION_CALL`. This fetch wrapper reads
 * the SSE bytes on their way to the SDK and keeps the last `finishMessage`; it inspects each chunk before passing it
 * on, so the message is known by the time the SDK yields the chunk that carries it.
 */
export class FinishMessageTap {
  #message: string | undefined;
  readonly #inner: typeof globalThis.fetch;

  /** `inner` is the fetch the request must really go through (the adapter's, e.g. NET-1's safe fetch). */
  constructor(inner: typeof globalThis.fetch = globalThis.fetch) {
    this.#inner = inner;
  }

  get message(): string | undefined {
    return this.#message;
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await this.#inner(input, init);
    if (response.body === null) return response;
    const decoder = new TextDecoder();
    let pending = '';
    const scan = (text: string): void => {
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) this.#read(line);
    };
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          scan(decoder.decode(chunk, { stream: true }));
          controller.enqueue(chunk);
        },
        flush: () => {
          scan(`${decoder.decode()}\n`);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  #read(line: string): void {
    if (!line.startsWith('data:') || !line.includes('"finishMessage"')) return;
    try {
      const payload = JSON.parse(line.slice(5)) as { candidates?: Array<{ finishMessage?: unknown }> };
      const message = payload.candidates?.[0]?.finishMessage;
      if (typeof message === 'string' && message !== '') this.#message = message;
    } catch {
      // Not ours to judge: the SDK reports unparsable frames itself.
    }
  }
}
