import { useState } from 'react';
import { api, call } from '../api/client';
import { useResource } from '../api/use-resource';
import { currentToken } from '../auth/token-store';
import { Page } from '../components/Page';
import { connectSnippets, TOKEN_PLACEHOLDER, type Snippet } from './connect-snippets';

export default function ConnectPage() {
  const me = useResource(() => call(api.GET('/api/me')));
  const snippets = connectSnippets(window.location.origin, me.data?.name);
  return (
    <Page
      title="Connect"
      intro="Use toolport's tools from any MCP client. Snippets show a placeholder instead of your token; copy one filled in only when you need it."
    >
      {snippets.map((snippet) => (
        <SnippetCard key={snippet.id} snippet={snippet} />
      ))}
    </Page>
  );
}

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

function SnippetCard({ snippet }: { snippet: Snippet }) {
  const [status, setStatus] = useState('');
  const [revealed, setRevealed] = useState<string | undefined>(undefined);
  const copyText = async (withToken: boolean) => {
    const text = snippet.text(withToken ? (currentToken() ?? TOKEN_PLACEHOLDER) : TOKEN_PLACEHOLDER);
    if (await copy(text)) setStatus(withToken ? 'Copied with your token.' : 'Copied.');
    else {
      // No clipboard (an insecure origin or a denied permission): show the text to copy by hand.
      setRevealed(text);
      setStatus('The clipboard is not available here: select the text below and copy it.');
    }
  };
  return (
    <section className="card" aria-labelledby={`snippet-${snippet.id}`}>
      <h2 id={`snippet-${snippet.id}`}>{snippet.title}</h2>
      <p>{snippet.description}</p>
      <pre className="json" aria-label={`${snippet.title} snippet`}>
        {snippet.text(TOKEN_PLACEHOLDER)}
      </pre>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => void copyText(false)}
          aria-label={`Copy ${snippet.title}`}
        >
          Copy
        </button>
        {snippet.usesToken ? (
          <button
            type="button"
            onClick={() => void copyText(true)}
            aria-label={`Copy ${snippet.title} with my token`}
          >
            Copy with my token
          </button>
        ) : null}
      </div>
      <p className="status" aria-live="polite">
        {status}
      </p>
      {revealed === undefined ? null : (
        <textarea readOnly aria-label="Text to copy" value={revealed} rows={4} />
      )}
    </section>
  );
}
