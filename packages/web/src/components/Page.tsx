import { useEffect, type ReactNode } from 'react';

/** A page's frame: its one h1 (also the document title) and an optional intro. */
export function Page(props: { title: string; intro?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · toolport`;
  }, [props.title]);
  return (
    <>
      <h1>{props.title}</h1>
      {props.intro === undefined ? null : <p className="intro">{props.intro}</p>}
      {props.children}
    </>
  );
}
