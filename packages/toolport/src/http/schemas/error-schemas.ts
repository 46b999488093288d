import { Type } from 'typebox';

/** Every error body has this shape (API-1): the code from core/error-codes.ts, a message, and named details. */
export const ErrorResponseSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'One of the codes in docs/errors.md.' }),
        message: Type.String(),
        parameter: Type.Optional(
          Type.String({ description: 'The invalid setting (422 ToolSettingsError).' }),
        ),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'ErrorResponse', description: '`{error: {code, message, ...details}}`' },
);

export const errorResponses = {
  400: ErrorResponseSchema,
  401: ErrorResponseSchema,
  404: ErrorResponseSchema,
  422: ErrorResponseSchema,
};
