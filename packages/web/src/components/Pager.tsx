import { useEffect, useState } from 'react';

/** Client-side pages of a long list, with Previous/Next buttons and the position in words. */
export function usePage<T>(items: readonly T[], pageSize: number, resetKey: string = '') {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / pageSize));
  useEffect(() => setPage(0), [resetKey]);
  const current = Math.min(page, pages - 1);
  return {
    visible: items.slice(current * pageSize, (current + 1) * pageSize),
    pager: <Pager page={current} pages={pages} onPage={setPage} />,
  };
}

function Pager(props: { page: number; pages: number; onPage: (page: number) => void }) {
  if (props.pages <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="secondary"
        disabled={props.page === 0}
        onClick={() => props.onPage(props.page - 1)}
      >
        Previous page
      </button>
      <span aria-live="polite">
        Page {props.page + 1} of {props.pages}
      </span>
      <button
        type="button"
        className="secondary"
        disabled={props.page >= props.pages - 1}
        onClick={() => props.onPage(props.page + 1)}
      >
        Next page
      </button>
    </nav>
  );
}
