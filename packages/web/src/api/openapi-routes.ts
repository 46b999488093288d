import { useResource } from './use-resource';

let document: Promise<Set<string>> | undefined;

/**
 * The routes the running server documents, read once from `/api/openapi.json` (public). Pages render features that
 * other parts of the server may add later (the HTTP tool dry-run, OpenAPI import) only when the route exists.
 */
export function documentedRoutes(): Promise<Set<string>> {
  document ??= fetch('/api/openapi.json')
    .then((response) => (response.ok ? (response.json() as Promise<{ paths?: Record<string, object> }>) : {}))
    .then((body: { paths?: Record<string, object> }) => {
      const routes = new Set<string>();
      for (const [path, item] of Object.entries(body.paths ?? {})) {
        for (const method of Object.keys(item)) routes.add(`${method.toUpperCase()} ${path}`);
      }
      return routes;
    })
    .catch(() => new Set<string>());
  return document;
}

export function useDocumentedRoute(route: string): boolean {
  const routes = useResource(documentedRoutes);
  return routes.data?.has(route) ?? false;
}
