import { lazy, Suspense, useSyncExternalStore, type ComponentType } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { api, call } from './api/client';
import { useResource } from './api/use-resource';
import { LoginPage } from './auth/LoginPage';
import { getAuthState, signOut, subscribeAuth } from './auth/token-store';
import { ToolsPage } from './pages/ToolsPage';

// The tool list is the landing page and ships in the first chunk; every other page loads when first opened.
const pages: { path: string; label: string; component: ComponentType }[] = [
  { path: '/tools', label: 'Tools', component: ToolsPage },
  { path: '/secrets', label: 'Secrets', component: lazy(() => import('./pages/SecretsPage')) },
  { path: '/providers', label: 'Providers', component: lazy(() => import('./pages/ProvidersPage')) },
  { path: '/mcp-servers', label: 'MCP servers', component: lazy(() => import('./pages/McpServersPage')) },
  { path: '/http-tools', label: 'HTTP tools', component: lazy(() => import('./pages/HttpToolsPage')) },
  { path: '/agents', label: 'Agents', component: lazy(() => import('./pages/AgentsPage')) },
  { path: '/chats', label: 'Chats', component: lazy(() => import('./pages/ChatsPage')) },
  { path: '/activity', label: 'Activity', component: lazy(() => import('./pages/ActivityPage')) },
  { path: '/inspector', label: 'Inspector', component: lazy(() => import('./pages/InspectorPage')) },
  { path: '/playground', label: 'Playground', component: lazy(() => import('./pages/PlaygroundPage')) },
  { path: '/connect', label: 'Connect', component: lazy(() => import('./pages/ConnectPage')) },
];

export function App() {
  const auth = useSyncExternalStore(subscribeAuth, getAuthState);
  if (auth.status !== 'signed-in') return <LoginPage revoked={auth.status === 'revoked'} />;
  return <Shell />;
}

function Shell() {
  const me = useResource(() => call(api.GET('/api/me')));
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">toolport</span>
        <span className="whoami">
          {me.data === undefined ? '' : `${me.data.name}${me.data.isAdmin ? ' (admin)' : ''}`}
        </span>
        <button type="button" className="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav className="sidebar" aria-label="Main">
        <ul>
          {pages.map((page) => (
            <NavItem key={page.path} path={page.path} label={page.label} />
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>
          <Switch>
            <Route path="/">
              <Redirect to="/tools" replace />
            </Route>
            {pages.map((page) => (
              <Route key={page.path} path={page.path} component={page.component} />
            ))}
            <Route>
              <NotFound />
            </Route>
          </Switch>
        </Suspense>
      </main>
    </div>
  );
}

function NavItem({ path, label }: { path: string; label: string }) {
  const [location] = useLocation();
  const active = location === path || location.startsWith(`${path}/`);
  return (
    <li>
      <Link href={path} aria-current={active ? 'page' : undefined} className={active ? 'active' : undefined}>
        {label}
      </Link>
    </li>
  );
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. <Link href="/tools">Go to the tools</Link>.
      </p>
    </>
  );
}
