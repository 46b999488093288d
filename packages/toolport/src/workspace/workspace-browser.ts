/** One browser context for one script call (`g.nav`), closed at the call's end. */
export interface BrowserSession {
  run(action: string, args: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

/** Opens a session, or `undefined` (returned synchronously) when no browser is configured. */
export type BrowserLauncher = () => Promise<BrowserSession> | undefined;
