import type { FastifyError, FastifyInstance } from 'fastify';
import { httpStatusForErrorCode, type ErrorCode } from '../../core/error-codes.ts';
import { isToolportError } from '../../core/errors.ts';

export interface ErrorBody {
  error: { code: ErrorCode; message: string; [detail: string]: unknown };
}

export function errorBody(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody {
  return { error: { ...details, code, message } };
}

/** One mapping from the error-code table to HTTP statuses; every error body has the same shape (API-1). */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isToolportError(error)) {
      const status = httpStatusForErrorCode(error.code);
      if (status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(status).send(errorBody(error.code, error.message, error.details));
    }
    if (error.validation !== undefined) {
      return reply.code(400).send(
        errorBody('bad_request', `Invalid request: ${error.message}.`, {
          validation: error.validation.map((issue) => ({
            path: `${error.validationContext ?? 'body'}${issue.instancePath}`,
            message: issue.message,
          })),
        }),
      );
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code: ErrorCode = status === 404 ? 'not_found' : status === 401 ? 'unauthorized' : 'bad_request';
      return reply.code(status).send(errorBody(code, error.message));
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply
      .code(500)
      .send(
        errorBody(
          'internal_error',
          'An unexpected error occurred inside toolport; the server log has the details.',
        ),
      );
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );
}
