import { randomUUID } from 'node:crypto';
import { isJsonObject, isJsonRpcId, type JsonObject, type JsonRpcId } from './mcp-tools-dispatcher.ts';

/*
 * Issue 16: the server's own requests to the client (`elicitation/create` for an `ask` call), waiting for the
 * client's JSON-RPC response. Shared by the stdio server (the answer arrives on stdin) and `/mcp` (the request goes
 * out on the call's SSE stream, the answer arrives as a later POST, possibly from another connection). Ids are random,
 * so an answer can only settle the request it names. SDK-free: the stdio path must not load the SDK.
 */
export class McpClientRequests {
  readonly #pending = new Map<
    string,
    { owner: string; resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();

  /**
   * Sends `method` through `write` and resolves with the client's result (rejects with its error). `owner` (a user
   * id) must match the answer's: nobody else's POST can answer another user's elicitation.
   */
  request(
    owner: string,
    method: string,
    params: JsonObject,
    signal: AbortSignal,
    write: (message: JsonObject) => void,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error('cancelled'));
      const id = `toolport-${randomUUID()}`;
      const onAbort = (): void => {
        this.#pending.delete(id);
        reject(new Error('cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        owner,
        resolve: (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Settles the request a response message answers; false when it answers nothing we are waiting for. */
  settle(owner: string, message: JsonObject): boolean {
    const { id } = message;
    if (!isJsonRpcId(id)) return false;
    const key: JsonRpcId = id;
    const waiting = typeof key === 'string' ? this.#pending.get(key) : undefined;
    if (waiting === undefined || waiting.owner !== owner) return false;
    this.#pending.delete(key as string);
    if (isJsonObject(message.error)) {
      waiting.reject(new Error(String(message.error.message ?? 'the client refused the request')));
    } else waiting.resolve(message.result);
    return true;
  }
}
