import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

export interface CappedResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body up to the cap. */
  body: Uint8Array;
  truncated: boolean;
}

export interface CappedDispatch {
  response: Promise<CappedResponse>;
  /** Stops the request now: the promise rejects with `reason`, and the connection is dropped if it was in use. */
  abort(reason: Error): void;
}

/**
 * One request on undici's dispatcher with a handler that buffers the body up to `maxBytes` (issue 14 item 8).
 * `request()` gives every response a Readable stream and every call an AbortSignal listener, which together cost more
 * than a small loopback round trip; this keeps neither. A body past the cap stops the request (never buffered past
 * it); an abort settles at once, even before a connection was found for the request.
 */
export function dispatchCapped(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  maxBytes: number,
  /** A response whose body is not wanted (a redirect to follow): it settles with an empty body, unread. */
  skipBody?: (statusCode: number, headers: IncomingHttpHeaders) => boolean,
): CappedDispatch {
  let controller: Dispatcher.DispatchController | undefined;
  let abortReason: Error | undefined;
  let settle: { resolve(response: CappedResponse): void; reject(error: unknown): void } | undefined;
  const response = new Promise<CappedResponse>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const finish = (outcome: CappedResponse | { error: unknown }): void => {
    const current = settle;
    if (current === undefined) return;
    settle = undefined;
    if ('error' in outcome) current.reject(outcome.error);
    else current.resolve(outcome);
  };

  let statusCode = 0;
  let headers: IncomingHttpHeaders = {};
  let chunks: Buffer[] = [];
  let received = 0;
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(started) {
      controller = started;
      if (abortReason !== undefined) started.abort(abortReason);
    },
    onResponseStart(current, status, responseHeaders) {
      statusCode = status;
      headers = responseHeaders;
      chunks = [];
      received = 0;
      if (skipBody?.(status, responseHeaders) === true) {
        finish({ statusCode, headers, body: new Uint8Array(0), truncated: false });
        current.abort(new Error('response body not wanted'));
      }
    },
    onResponseData(current, chunk) {
      if (settle === undefined) return;
      const room = maxBytes - received;
      if (chunk.byteLength > room) {
        chunks.push(chunk.subarray(0, room));
        received += room;
        finish({ statusCode, headers, body: Buffer.concat(chunks, received), truncated: true });
        current.abort(new Error('response size cap reached'));
        return;
      }
      chunks.push(chunk);
      received += chunk.byteLength;
    },
    onResponseEnd() {
      finish({
        statusCode,
        headers,
        body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received),
        truncated: false,
      });
    },
    onResponseError(_controller, error) {
      finish({ error });
    },
  };
  try {
    dispatcher.dispatch(options, handler);
  } catch (error) {
    finish({ error });
  }
  return {
    response,
    abort(reason) {
      if (abortReason !== undefined || settle === undefined) return;
      abortReason = reason;
      controller?.abort(reason);
      finish({ error: reason });
    },
  };
}
