/**
 * The API token lives in this tab's sessionStorage only (closing the tab logs out). `serve` prints a login URL with
 * the token in the fragment, which browsers never send to the server; we take it from there and drop it from the URL.
 */
const STORAGE_KEY = 'toolport.token';

export type AuthState =
  { status: 'signed-out' } | { status: 'signed-in'; token: string } | { status: 'revoked' };

let state: AuthState = { status: 'signed-out' };
const listeners = new Set<() => void>();

function publish(next: AuthState): void {
  state = next;
  for (const listener of listeners) listener();
}

export function subscribeAuth(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getAuthState(): AuthState {
  return state;
}

export function currentToken(): string | undefined {
  return state.status === 'signed-in' ? state.token : undefined;
}

/** Reads `#token=…` (removing it from the address bar and history) or the token stored earlier in this tab. */
export function initialiseAuth(location: Location, history: History, storage: Storage): void {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const fromFragment = fragment.get('token');
  if (fromFragment !== null && fromFragment !== '') {
    storage.setItem(STORAGE_KEY, fromFragment);
    fragment.delete('token');
    const rest = fragment.toString();
    history.replaceState(
      history.state,
      '',
      `${location.pathname}${location.search}${rest === '' ? '' : `#${rest}`}`,
    );
  }
  const stored = storage.getItem(STORAGE_KEY);
  publish(
    stored === null || stored === '' ? { status: 'signed-out' } : { status: 'signed-in', token: stored },
  );
}

export function signIn(token: string): void {
  sessionStorage.setItem(STORAGE_KEY, token);
  publish({ status: 'signed-in', token });
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  publish({ status: 'signed-out' });
}

/** A 401 with a token: it was revoked (or never valid). The stored copy is useless now. */
export function markRevoked(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  if (state.status !== 'revoked') publish({ status: 'revoked' });
}
