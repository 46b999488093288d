import { useState, type FormEvent } from 'react';
import { signIn } from './token-store';

/** The paste-a-token form; with `revoked`, the page that says why the tab was signed out. */
export function LoginPage({ revoked }: { revoked: boolean }) {
  const [token, setToken] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (token.trim() !== '') signIn(token.trim());
  };
  return (
    <main className="login" id="main">
      <h1>{revoked ? 'Your token no longer works' : 'Sign in to toolport'}</h1>
      {revoked ? (
        <p role="alert">
          The server refused this tab&apos;s token: it was revoked, or it never was valid. Paste a current
          token to go on (an admin can issue one with <code>toolport user create NAME</code> or{' '}
          <code>POST /api/tokens</code>).
        </p>
      ) : (
        <p>
          Open the login URL that <code>toolport serve</code> printed (it carries the token after{' '}
          <code>#token=</code>), or paste an API token here. It is kept in this tab only.
        </p>
      )}
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor="login-token">API token</label>
          <input
            id="login-token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={token}
            onChange={(event) => setToken(event.target.value)}
          />
        </div>
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
