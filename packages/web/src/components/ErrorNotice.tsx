import { ApiError, errorMessage } from '../api/client';

/** An API or network error in words, announced to screen readers. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p className="error" role="alert">
      {error instanceof ApiError ? `${error.message} (${error.code})` : errorMessage(error)}
    </p>
  );
}
